/**
 * kube's EventRateLimit admission (plugin/pkg/admission/eventratelimit): a validating plugin that
 * refuses core/v1 Event creates and updates past their limits with 429 TooManyRequests. Each
 * configured limit type keys its buckets its own way: Server one bucket, Namespace the event's
 * namespace, User the requester's name, SourceAndObject the event's source and involved object.
 * Every limit takes a token from its bucket, refused or not. Only the core group's Events count:
 * events.k8s.io Events are not limited (kube checks the request's group and kind), and neither are
 * dry runs, which write nothing. Off by default; it needs a configuration.
 */
import { ApiError, KubeObject, aggregateMessages, failureStatus } from '../../../api';
import type { RequestContext } from '../../../api/request-context';
import { AdmissionAttributes, AdmissionPlugin, handlesOperations } from '../../interface';
import type { Plugins } from '../../plugin-registry';
import { loadEventRateLimitConfig, type EventRateLimitConfiguration } from './config';
import { Clock, LimitEnforcer } from './limiter';

export const eventRateLimitPluginName = 'EventRateLimit';

type KeyFunc = (ctx: RequestContext, a: AdmissionAttributes) => string;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** kube's getSourceAndObjectKey: the source and involved object's fields, joined with nothing between. */
function sourceAndObjectKey(_ctx: RequestContext, a: AdmissionAttributes): string {
  const e: KubeObject | undefined = a.object;
  if (!e) return '';
  const source = (e.source ?? {}) as Record<string, unknown>;
  const involved = (e.involvedObject ?? {}) as Record<string, unknown>;
  return [source.component, source.host, involved.kind, involved.namespace, involved.name, involved.uid, involved.apiVersion].map(str).join('');
}

const keyFuncs: Record<string, KeyFunc> = {
  Server: () => '',
  Namespace: (_ctx, a) => a.namespace,
  User: (ctx) => ctx.user?.name ?? '',
  SourceAndObject: sourceAndObjectKey,
};

/** The plugin over a validated configuration; `now` is the clock its buckets fill by. */
export function eventRateLimit(config: EventRateLimitConfiguration, now: Clock = () => performance.now()): AdmissionPlugin {
  const enforcers = (config.limits ?? []).map((limit) => {
    const key = keyFuncs[limit.type];
    if (!key) throw new Error(`unknown event rate limit type: ${limit.type}`);
    return { enforcer: new LimitEnforcer(limit, now), key };
  });
  return {
    name: eventRateLimitPluginName,
    handles: handlesOperations('CREATE', 'UPDATE'),
    async validate(ctx, a) {
      if (a.group !== '' || a.kind !== 'Event' || a.dryRun) return;
      const refusals: string[] = [];
      for (const { enforcer, key } of enforcers) {
        const refusal = enforcer.accept(key(ctx, a));
        if (refusal) refusals.push(refusal);
      }
      // kube's NewTooManyRequestsError: no details, so no Retry-After.
      if (refusals.length) throw new ApiError(failureStatus(429, 'TooManyRequests', `Too many requests: ${aggregateMessages(refusals)}`));
    },
  };
}

/** Its configuration is read (and refused) before anything starts; needs nothing from the server. */
export function registerEventRateLimit(plugins: Plugins): void {
  plugins.register(eventRateLimitPluginName, { readConfig: loadEventRateLimitConfig, build: (config) => eventRateLimit(config) });
}
