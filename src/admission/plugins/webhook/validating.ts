/**
 * The validating webhooks of one request (kube's validating dispatcher): which ones match is
 * decided first, in order (a matching error ends the request there); then all of them are called
 * at once, each within its own timeout. The request fails with the first error to arrive, as kube
 * returns the first one its channel received; a webhook that failed under failurePolicy Ignore
 * leaves kube's `failed-open.validating.webhook.admission.k8s.io/round_0_index_<i>` annotation.
 */
import { errors } from '../../../api';
import { requestDone, type RequestContext } from '../../../api/request-context';
import { kindOf, type AdmissionAttributes } from '../../interface';
import { addAdmissionAnnotation, callWebhook } from './call';
import { CallingWebhookError } from './errors';
import { DispatchContext, shouldCallHook, type DispatchEnv, type Invocation } from './match';
import { isExemptAdmissionConfigurationResource } from './rules';

const FAILED_OPEN_ANNOTATION_PREFIX = 'failed-open.validating.webhook.admission.k8s.io/';

/** kube's validating Dispatch for one request. */
export async function dispatchValidating(env: DispatchEnv, ctx: RequestContext, attrs: AdmissionAttributes): Promise<void> {
  if (isExemptAdmissionConfigurationResource(kindOf(attrs).group, attrs.kind)) return;
  const hooks = env.hooks();
  if (hooks.length === 0) return;
  const dc = new DispatchContext(ctx, attrs, env.deps);
  const relevant: Invocation[] = [];
  for (const hook of hooks) {
    const inv = await shouldCallHook(hook, dc);
    if (inv) relevant.push(inv);
  }
  if (relevant.length === 0) return;
  if (requestDone(ctx)) throw errors.timeout('request did not complete within requested timeout', 0);
  const failures: unknown[] = [];
  await Promise.all(
    relevant.map(async (inv, idx) => {
      try {
        await callWebhook(ctx, inv, false, env.clients);
      } catch (e) {
        if (!(e instanceof CallingWebhookError)) {
          failures.push(e);
          return;
        }
        if (!inv.hook.ignoreFailures) {
          failures.push(e.toApiError());
          return;
        }
        addAdmissionAnnotation(ctx, `${FAILED_OPEN_ANNOTATION_PREFIX}round_0_index_${idx}`, inv.hook.name);
      }
    }),
  );
  if (failures.length > 0) throw failures[0];
}
