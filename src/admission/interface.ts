/**
 * Admission: mutating and validating plugins run by the registry around every write (kube:
 * k8s.io/apiserver/pkg/admission/interfaces.go, chain.go). Plugins are built by name from the
 * registry of factories in plugin-registry.ts.
 */
import type { KubeObject } from '../api';
import type { RequestContext } from '../api/request-context';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export const allOperations: readonly Operation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

export interface AdmissionAttributes {
  operation: Operation;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  kind: string;
  /**
   * The kind's group and version when they are not the resource's: a subresource answered in
   * another group's kind (serviceaccounts/token is authentication.k8s.io/v1 TokenRequest). Absent,
   * the kind is in `group`/`version`.
   */
  kindGroupVersion?: { group: string; version: string };
  namespace: string;
  name: string;
  namespaced: boolean;
  object?: KubeObject;
  oldObject?: KubeObject;
  dryRun: boolean;
  /**
   * Decodes a JSON value into the kind as kube's JSON decoder does (unknown fields dropped, a wrong
   * type refused): what an object patched by a mutating admission webhook goes through. Throws an
   * Error whose message is the decoder's, in Go's words. Set by the registry; absent, a patched
   * object is taken as it is.
   */
  decode?: (obj: unknown) => KubeObject;
  /**
   * The state of one `admit` of the chain across its two passes (kube's ReinvocationContext), set
   * by AdmissionChain.admit: a plugin that changed the object asks for the second pass with
   * `shouldReinvoke`, and keeps what it needs between passes under its name.
   */
  reinvocation?: ReinvocationContext;
}

/** The group and version of the attributes' kind (AdmissionAttributes.kindGroupVersion, else the resource's). */
export function kindOf(a: AdmissionAttributes): { group: string; version: string; kind: string } {
  const gv = a.kindGroupVersion ?? a;
  return { group: gv.group, version: gv.version, kind: a.kind };
}

/**
 * kube's admission ReinvocationContext: whether the mutating chain runs a second time, whether
 * this is that second pass, and per-plugin values that live across the two passes.
 */
export class ReinvocationContext {
  /** True during the second pass. */
  isReinvoke = false;
  /** Set by a plugin (a mutating webhook) that changed the object: the chain runs once more. */
  shouldReinvoke = false;
  private readonly values = new Map<string, unknown>();

  /** The value a plugin keeps under `key`, made by `make` the first time. */
  value<T>(key: string, make: () => T): T {
    if (!this.values.has(key)) this.values.set(key, make());
    return this.values.get(key) as T;
  }
}

/**
 * A plugin (kube's admission.Interface): `handles` says which operations it is asked about (kube's
 * Handler); it mutates in `admit` (kube's MutationInterface) and/or checks in `validate` (kube's
 * ValidationInterface), and throws ApiError to reject.
 */
export interface AdmissionPlugin {
  name: string;
  handles(operation: Operation): boolean;
  admit?(ctx: RequestContext, attrs: AdmissionAttributes): Promise<void>;
  validate?(ctx: RequestContext, attrs: AdmissionAttributes): Promise<void>;
}

/** The kind of options object kube hands admission for each operation (kube: the handlers' *Options). */
const optionsKind: Record<Operation, string | undefined> = {
  CREATE: 'CreateOptions',
  UPDATE: 'UpdateOptions',
  DELETE: 'DeleteOptions',
  CONNECT: undefined,
};

/**
 * The operation's options as kube's admission attributes carry them (GetOperationOptions), what
 * an AdmissionReview's `request.options` holds: `meta.k8s.io/v1` CreateOptions, UpdateOptions (a
 * PATCH too) or DeleteOptions, with `dryRun: ["All"]` on a dry run. Undefined for CONNECT.
 */
export function operationOptions(ctx: RequestContext, operation: Operation): Record<string, unknown> | undefined {
  const kind = optionsKind[operation];
  if (!kind) return undefined;
  return { kind, apiVersion: 'meta.k8s.io/v1', ...(ctx.dryRun ? { dryRun: ['All'] } : {}), ...ctx.writeOptions };
}

/** kube's admission.NewHandler: a `handles` answering true for exactly the given operations. */
export function handlesOperations(...operations: Operation[]): (operation: Operation) => boolean {
  const set = new Set(operations);
  return (operation) => set.has(operation);
}

/**
 * kube's chainAdmissionHandler inside its reinvocation handler: `admit` runs every mutating plugin
 * that handles the operation, in order, and when a plugin asked for it (a mutating webhook changed
 * the object) runs them all once more, in-tree plugins included (the ServiceAccount plugin then
 * mounts its token into a container a webhook added; webhooks decide for themselves whether they
 * are called again). The registry then does its own validation; `validate` runs every validating
 * plugin that handles the operation, in order, once. The first plugin to throw ends the phase.
 */
export class AdmissionChain {
  /** The plugins, in chain order. */
  readonly plugins: readonly AdmissionPlugin[];

  constructor(plugins: AdmissionPlugin[]) {
    this.plugins = [...plugins];
  }

  /** Every plugin's name, in chain order. */
  get names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  /** The mutating plugins' names, in the order `admit` runs them. */
  get mutating(): string[] {
    return this.plugins.filter((p) => p.admit).map((p) => p.name);
  }

  /** The validating plugins' names, in the order `validate` runs them. */
  get validating(): string[] {
    return this.plugins.filter((p) => p.validate).map((p) => p.name);
  }

  async admit(ctx: RequestContext, attrs: AdmissionAttributes): Promise<void> {
    const reinvocation = (attrs.reinvocation = new ReinvocationContext());
    await this.admitOnce(ctx, attrs);
    if (!reinvocation.shouldReinvoke) return;
    reinvocation.isReinvoke = true;
    await this.admitOnce(ctx, attrs);
  }

  private async admitOnce(ctx: RequestContext, attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.admit && p.handles(attrs.operation)) await p.admit(ctx, attrs);
  }

  async validate(ctx: RequestContext, attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.validate && p.handles(attrs.operation)) await p.validate(ctx, attrs);
  }
}
