/**
 * `--feature-gates`: every gate kube-apiserver 1.32 knows, with the stage and default it gives them
 * (the table is kube-feature-gates.ts), and the rules of component-base featuregate's SetFromMap:
 * unknown gate → error, a locked gate set away from its default → error, setting a GA or
 * deprecated gate → a warning. AllAlpha / AllBeta set every alpha / beta gate not named explicitly.
 */

import { FeatureSpec, kubeApiserverFeatureGates } from './kube-feature-gates';

export type { FeatureSpec, FeatureStage } from './kube-feature-gates';

/** The gates of kube-apiserver 1.32 (kube-feature-gates.ts), names as kube spells them. */
export const knownFeatureGates: ReadonlyMap<string, FeatureSpec> = new Map(kubeApiserverFeatureGates);

/** component-base's special gates: they switch every alpha / beta gate not set explicitly. */
const specialGates: ReadonlyMap<string, 'ALPHA' | 'BETA'> = new Map([
  ['AllAlpha', 'ALPHA'],
  ['AllBeta', 'BETA'],
]);

/** A `--feature-gates` value the server refuses to start with; the message is kube's, word for word. */
export class FeatureGateError extends Error {
  override readonly name = 'FeatureGateError';
}

/** Options for {@link FeatureGates.fromFlags}. */
export interface FeatureGateOptions {
  /** Receives kube's warnings for GA and deprecated gates set explicitly. */
  onWarning?: (message: string) => void;
  /** The gate table (default {@link knownFeatureGates}); tests pass their own. */
  known?: ReadonlyMap<string, FeatureSpec>;
}

/** The resolved gates of one server: immutable once built. */
export class FeatureGates {
  private constructor(
    private readonly known: ReadonlyMap<string, FeatureSpec>,
    private readonly enabledMap: ReadonlyMap<string, boolean>,
  ) {}

  /** Every gate at its default. */
  static defaults(): FeatureGates {
    return new FeatureGates(knownFeatureGates, new Map());
  }

  /**
   * Resolves `--feature-gates` (already parsed into name → bool, in flag order). Throws
   * FeatureGateError with kube's message: `unrecognized feature gate: X` (the first unknown name
   * stops the check, as kube's does), `cannot set feature gate X to false, feature is locked to
   * true`; several locked-gate errors are joined as kube's aggregate error prints them (`[a, b]`).
   */
  static fromFlags(flags: ReadonlyMap<string, boolean>, opts: FeatureGateOptions = {}): FeatureGates {
    const known = opts.known ?? knownFeatureGates;
    const enabled = new Map<string, boolean>();
    const errs: string[] = [];
    const warnings: string[] = [];
    for (const [name, value] of flags) {
      const special = specialGates.get(name);
      if (special) {
        for (const [other, spec] of known) if (spec.stage === special && !flags.has(other)) enabled.set(other, value);
        continue;
      }
      const spec = known.get(name);
      if (!spec) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
      if (spec.lockToDefault && spec.default !== value) {
        errs.push(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
        continue;
      }
      enabled.set(name, value);
      if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      else if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    // apimachinery's utilerrors aggregate: one error prints bare, several as "[a, b]".
    if (errs.length === 1) throw new FeatureGateError(errs[0] as string);
    if (errs.length > 1) throw new FeatureGateError(`[${errs.join(', ')}]`);
    for (const w of warnings) opts.onWarning?.(w);
    return new FeatureGates(known, enabled);
  }

  /** Whether `name` is on. Throws Error for a gate the table does not know (a programming error). */
  enabled(name: string): boolean {
    const spec = this.known.get(name);
    if (!spec) throw new Error(`feature "${name}" is not registered in FeatureGate`);
    return this.enabledMap.get(name) ?? spec.default;
  }

  /** `A=true,B=false` of the gates set explicitly, sorted (component-base's String()). */
  toString(): string {
    return [...this.enabledMap].map(([k, v]) => `${k}=${v}`).sort().join(',');
  }
}
