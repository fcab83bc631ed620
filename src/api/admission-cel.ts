/**
 * The matchConditions of admission webhooks (kube's pkg/admission/plugin/webhook/matchconditions
 * over pkg/admission/plugin/cel), compiled when a webhook configuration is written and evaluated
 * per admission call.
 *
 * The environment is kube's for webhooks (createEnvForOpts with HasAuthorizer, no params):
 * `object` and `oldObject` (dyn), `request` (kube's AdmissionRequest type: no uid, object or
 * oldObject), `namespaceObject` (declared, always null for webhooks: the matcher passes no
 * namespace; dyn here, see below), `authorizer` and `authorizer.requestResource` (kube's authorizer library, checks
 * answered by the caller's `authorize`). A condition must be a bool.
 *
 * Evaluation is kube's: every condition is evaluated, in order, each with the per-call limit
 * (1,000,000) and all of one webhook's together with RuntimeCELCostBudgetMatchConditions
 * (2,500,000; running past it fails the whole match). Then the first false condition answers
 * "no match" (false wins over errors), else any errors answer with kube's aggregate of them.
 * Authorizer checks: evaluation is synchronous (the cost budget is counted per evaluation), so a
 * condition is run, the checks it asked for are answered through `authorize`, and it is run again
 * with the answers until it asks for none it lacks; answers are shared by the conditions of one
 * call.
 */
import {
  CEL_PER_CALL_LIMIT,
  CelEnvironment,
  CelEvaluationError,
  celAuthorizer,
  celInput,
  type CelAuthorizerCheck,
  type CelAuthorizerDecision,
  type CelObjectType,
  type CelProgram,
  type CelRequestResource,
} from './cel';

export { CelCompileError } from './cel';
export type { CelAuthorizerCheck as AdmissionAuthorizerCheck } from './cel';

/** kube's RuntimeCELCostBudgetMatchConditions: all conditions of one webhook, per admission call. */
const MATCH_CONDITIONS_COST_BUDGET = 2_500_000;
/** kube's message when the conditions of one webhook run out of that budget. */
export const MATCH_CONDITIONS_OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

const gvk: CelObjectType = { object: 'kubernetes.GroupVersionKind', fields: { group: 'string', version: 'string', kind: 'string' } };
const gvr: CelObjectType = { object: 'kubernetes.GroupVersionResource', fields: { group: 'string', version: 'string', resource: 'string' } };

/** kube's BuildRequestType. */
const ADMISSION_REQUEST_TYPE: CelObjectType = {
  object: 'kubernetes.AdmissionRequest',
  fields: {
    kind: gvk,
    resource: gvr,
    subResource: 'string',
    requestKind: gvk,
    requestResource: gvr,
    requestSubResource: 'string',
    name: 'string',
    namespace: 'string',
    operation: 'string',
    userInfo: {
      object: 'kubernetes.UserInfo',
      fields: { username: 'string', uid: 'string', groups: { list: 'string' }, extra: { map: ['string', { list: 'string' }] } },
    },
    dryRun: 'bool',
    options: 'dyn',
  },
};

let environment: CelEnvironment | undefined;
const admissionEnvironment = (): CelEnvironment =>
  (environment ??= new CelEnvironment({
    // kube declares namespaceObject with its Namespace type; a value of an object type cannot be
    // null in cel-js, and for webhooks it is always null, so it is dyn here (its fields are not
    // checked at compile time; reading one fails at evaluation as in kube: no such key).
    variables: { object: 'dyn', oldObject: 'dyn', namespaceObject: 'dyn', request: ADMISSION_REQUEST_TYPE },
    authorizer: true,
  }));

export interface CompiledAdmissionMatchCondition {
  readonly name: string;
  readonly expression: string;
  /** @internal */
  readonly program: CelProgram;
}

/**
 * Compiles one matchCondition; throws CelCompileError whose message is kube's detail for the
 * field's error (`compilation failed: ERROR: <input>:1:4: …`, or `must evaluate to bool but got
 * <type>`; its `fieldError` makes the field error). kube's validation compiles the expression with
 * surrounding spaces trimmed (and reports an empty one as Required before compiling): a validator
 * should pass it trimmed. `newExpression`: an expression a write introduces, checked in kube's
 * environment for new expressions (its compatibility version's); else the stored expressions'
 * environment, which the admission plugin compiles with.
 */
export function compileAdmissionMatchCondition(name: string, expression: string, opts: { newExpression?: boolean } = {}): CompiledAdmissionMatchCondition {
  const program = admissionEnvironment().compile(expression, { resultTypes: ['bool'], withActual: true, newExpression: opts.newExpression ?? false });
  return { name, expression, program };
}

export interface AdmissionMatchInput {
  object: unknown | null;
  oldObject: unknown | null;
  /** The AdmissionRequest as AdmissionReview v1 carries it. */
  request: unknown;
  /**
   * Answers the authorizer checks of `authorizer` (for the requesting user, or for
   * `check.serviceAccount`'s user when set). A rejection is a decision that errored. Without it,
   * every check errors.
   */
  authorize?: (check: CelAuthorizerCheck) => Promise<{ decision: 'allow' | 'deny' | 'no-opinion'; reason?: string }>;
}

export type AdmissionMatchResult = { match: true } | { match: false; name: string } | { error: string; name: string };

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** What kube's CreateAdmissionRequest puts in `request`: the review's request without uid, object and oldObject. */
function requestValue(request: unknown): unknown {
  const { uid: _uid, object: _object, oldObject: _oldObject, ...rest } = rec(request);
  return rest;
}

/** `authorizer.requestResource`: the resource of the request as made (kube reads the attributes). */
function requestResource(request: unknown): CelRequestResource {
  const r = rec(request);
  const resource = rec(r.requestResource ?? r.resource);
  return {
    group: str(resource.group),
    resource: str(resource.resource),
    subresource: str(r.requestSubResource ?? r.subResource),
    namespace: str(r.namespace),
    name: str(r.name),
  };
}

/** Checks an evaluation may ask: kube's cost makes more than three per expression impossible. */
const MAX_AUTHORIZER_ROUNDS = 8;

/**
 * kube's matchconditions matcher (see the header): `{ match: true }` when every condition is true,
 * `{ match: false, name }` for the first false one, else `{ error, name }` with kube's message
 * (the aggregate of each failure, `expression '<expr>' resulted in error: <cel error>`) and the
 * first failing condition's name. The caller applies the webhook's failurePolicy.
 */
export async function evaluateAdmissionMatchConditions(conditions: readonly CompiledAdmissionMatchCondition[], input: AdmissionMatchInput): Promise<AdmissionMatchResult> {
  if (conditions.length === 0) return { match: true };
  const vars = {
    object: input.object == null ? null : celInput(input.object),
    oldObject: input.oldObject == null ? null : celInput(input.oldObject),
    request: celInput(requestValue(input.request)),
    namespaceObject: null,
    authorizer: celAuthorizer(requestResource(input.request)),
  };
  const answers = new Map<string, CelAuthorizerDecision>();
  const ask = async (check: CelAuthorizerCheck): Promise<CelAuthorizerDecision> => {
    if (!input.authorize) return { decision: 'no-opinion', error: 'no authorizer is available for this evaluation' };
    try {
      const d = await input.authorize(check);
      return { decision: d.decision, ...(d.reason !== undefined ? { reason: d.reason } : {}) };
    } catch (e) {
      return { decision: 'no-opinion', error: e instanceof Error ? e.message : String(e) };
    }
  };

  let remaining = MATCH_CONDITIONS_COST_BUDGET;
  const results: Array<{ value: unknown } | { error: string }> = [];
  for (const c of conditions) {
    let outcome: { value: unknown; cost: number } | { error: string; cost: number } | undefined;
    for (let round = 0; !outcome; round++) {
      const pending = new Map<string, CelAuthorizerCheck>();
      try {
        const r = c.program.evaluate(vars, { costLimit: CEL_PER_CALL_LIMIT, authorizerAnswers: answers, pending });
        outcome = { value: r.value, cost: r.cost };
      } catch (e) {
        if (!(e instanceof CelEvaluationError)) throw e;
        if (pending.size === 0 || round >= MAX_AUTHORIZER_ROUNDS) {
          outcome = { error: `expression '${c.expression}' resulted in error: ${e.message}`, cost: e.cost };
          break;
        }
        const asked = [...pending.entries()];
        const decided = await Promise.all(asked.map(([, check]) => ask(check)));
        asked.forEach(([key], i) => answers.set(key, decided[i] as CelAuthorizerDecision));
      }
    }
    if (outcome.cost > remaining) return { error: MATCH_CONDITIONS_OUT_OF_BUDGET, name: c.name };
    remaining -= outcome.cost;
    results.push('error' in outcome ? { error: outcome.error } : { value: outcome.value });
  }

  const errors: string[] = [];
  let firstErrorName: string | undefined;
  for (let i = 0; i < conditions.length; i++) {
    const r = results[i] as { value: unknown } | { error: string };
    const name = (conditions[i] as CompiledAdmissionMatchCondition).name;
    if ('error' in r) {
      errors.push(r.error);
      firstErrorName ??= name;
    } else if (r.value === false) return { match: false, name };
  }
  if (errors.length === 0) return { match: true };
  return { error: aggregate(errors), name: firstErrorName as string };
}

/** apimachinery's utilerrors aggregate text: one error as it is, several deduplicated in `[a, b]`. */
function aggregate(errors: string[]): string {
  if (errors.length === 1) return errors[0] as string;
  const unique = [...new Set(errors)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]`;
}

