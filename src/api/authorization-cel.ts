/**
 * The matchConditions of an authorization webhook (kube's k8s.io/apiserver/pkg/authorization/cel):
 * CEL over one variable, `request`, the authorization.k8s.io/v1 SubjectAccessReviewSpec of the
 * request being authorized, declared with kube's type (buildRequestType; api/cel.ts), so an
 * unknown field (`undefined field 'x'`) or a result that is not a bool (`must evaluate to bool
 * but got string`) is refused at load as kube's type checker refuses it. Evaluation follows kube's
 * CELMatcher: the first false condition skips the webhook, errors are reported only when no
 * condition is false. Each evaluation has kube's per-call cost limit (api/cel.ts).
 */
import type { SubjectAccessReviewSpec } from './authorization';
import { celEnvironmentFor, celInput, type CelProgram } from './cel';

export type { SubjectAccessReviewSpec } from './authorization';

/** One compiled matchCondition. */
export interface CompiledMatchCondition {
  readonly expression: string;
  readonly program: CelProgram;
}

/**
 * Compiles one matchCondition expression; throws CelCompileError whose message is kube's detail
 * (`compilation failed: …`, `must evaluate to bool but got …`).
 */
export function compileMatchCondition(expression: string): CompiledMatchCondition {
  const program = celEnvironmentFor('request').compile(expression, { resultTypes: ['bool'], withActual: true });
  return { expression, program };
}

/**
 * kube's convertObjectToUnstructured: every string attribute present (empty ones too), `groups`
 * and `extra` always there, the attributes' objects only when the spec has them.
 */
function requestValue(spec: SubjectAccessReviewSpec): Record<string, unknown> {
  const ra = spec.resourceAttributes;
  const nra = spec.nonResourceAttributes;
  return {
    user: spec.user ?? '',
    groups: spec.groups ?? [],
    uid: spec.uid ?? '',
    extra: spec.extra ?? {},
    ...(ra
      ? {
          resourceAttributes: {
            namespace: ra.namespace ?? '',
            verb: ra.verb ?? '',
            group: ra.group ?? '',
            version: ra.version ?? '',
            resource: ra.resource ?? '',
            subresource: ra.subresource ?? '',
            name: ra.name ?? '',
          },
        }
      : {}),
    ...(nra ? { nonResourceAttributes: { verb: nra.verb ?? '', path: nra.path ?? '' } } : {}),
  };
}

/**
 * kube's CELMatcher.Eval: `{ match: false }` at the first condition that is false; otherwise
 * `{ match: true }` when all were true, or `{ error }` (kube's aggregate of each failure) when some
 * could not be evaluated.
 */
export function evaluateMatchConditions(conditions: readonly CompiledMatchCondition[], spec: SubjectAccessReviewSpec): { match: boolean } | { error: string } {
  if (conditions.length === 0) return { match: true };
  const request = celInput(requestValue(spec));
  const errs: string[] = [];
  for (const c of conditions) {
    let result: unknown;
    try {
      result = c.program.evaluate({ request }).value;
    } catch (e) {
      errs.push(`cel evaluation error: expression '${c.expression}' resulted in error: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    if (typeof result !== 'boolean') {
      errs.push(`cel evaluation error: expression '${c.expression}' eval result type should be bool but got ${celResultType(result)}`);
      continue;
    }
    if (!result) return { match: false };
  }
  if (errs.length === 0) return { match: true };
  const unique = [...new Set(errs)];
  return { error: unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]` };
}

function celResultType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (v === null) return 'null_type';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'map';
  return 'dyn';
}
