/**
 * What a library of kube's CEL environment (api/cel-lib-*.ts) needs of the CEL library to declare
 * itself: api/cel.ts hands its cel-js Environment over as this, so it stays the one file that
 * imports a CEL library. Signatures are cel-js's (`net.IP.family(): int`, `list<A>`, `optional<T>`).
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- handlers receive CEL values of the signature's types */
export interface CelRegistrar {
  registerFunction(signature: string, handler: (...args: any[]) => unknown): unknown;
  registerOperator(signature: string, handler: (left: any, right: any) => unknown): unknown;
  /** An opaque type: values are instances of `ctor`, with no fields an expression can read unless listed. */
  registerType(name: string, definition: { ctor: abstract new (...args: any[]) => object; fields: Record<string, string> }): unknown;
  registerConstant(name: string, type: string, value: unknown): unknown;
  /** Evaluates a constant expression (to read the type values the library registered). */
  evaluate(expression: string): unknown;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** An optional value (cel-js's Optional), made by api/cel.ts. */
export interface CelOptionals {
  of(value: unknown): unknown;
  none(): unknown;
}

/**
 * A namespace of kube's function names (`ip.isCanonical`, `format.named`, `strings.quote`): in
 * cel-go a qualified function name; here a constant of an opaque type whose member functions are
 * the namespace's, declared by its library. api/cel.ts refuses the constant anywhere else and
 * names the functions as cel-go does.
 */
export interface CelNamespace {
  readonly name: string;
  /** The constant's (internal) type name. */
  readonly typeName: string;
  readonly functions: readonly string[];
  /** Type names read as fields (`net.IP`), cel-go's type identifiers. */
  readonly fields?: readonly string[];
}
