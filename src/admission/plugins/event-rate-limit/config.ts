/**
 * EventRateLimit's configuration: kind `Configuration`, `eventratelimit.admission.k8s.io/v1alpha1`
 * (kube: plugin/pkg/admission/eventratelimit/apis/eventratelimit and its validation). kube decodes
 * it with a plain codec factory, so unknown and repeated fields pass silently; v1alpha1 defaults
 * nothing (an unset cacheSize is 0, which the limit enforcer reads as 4096); validation reports
 * every problem with kube's field paths. Errors come back bare, as kube's plugin factory returns
 * them (the registry prefixes `couldn't init admission plugin "EventRateLimit": `).
 */
import { FieldError, FieldPath, aggregateMessages, fieldErrorString, fieldErrors } from '../../../api';
import { configVersion, defineConfigKind, loadConfig, s, type ConfigSource } from '../../../config/versioned-config';

/** kube's limit types, in the order kube declares them. */
const LIMIT_TYPES = ['Server', 'Namespace', 'User', 'SourceAndObject'] as const;

export interface Limit {
  /** One of LIMIT_TYPES once validated. */
  type: string;
  qps: number;
  burst: number;
  /** 0: unset (4096). Ignored for Server. */
  cacheSize: number;
}

export interface EventRateLimitConfiguration {
  /** Undefined when absent or null (Go's nil slice), which validation words differently from []. */
  limits: Limit[] | undefined;
}

const v1alpha1 = s.struct('v1alpha1.Configuration', {
  limits: s.list(
    s.struct('v1alpha1.Limit', {
      type: s.string('v1alpha1.LimitType'),
      qps: s.int32(),
      burst: s.int32(),
      cacheSize: s.int32(),
    }),
  ),
});

export const eventRateLimitConfigKind = defineConfigKind<EventRateLimitConfiguration>({
  group: 'eventratelimit.admission.k8s.io',
  kind: 'Configuration',
  versions: {
    v1alpha1: configVersion(v1alpha1, {
      toInternal: (v) => ({ limits: v.limits?.map((l) => ({ type: l.type, qps: l.qps, burst: l.burst, cacheSize: l.cacheSize })) }),
    }),
  },
  // The plugin's scheme is made by runtime.NewScheme, whose name is its call site in scheme.go.
  scheme: 'pkg/runtime/scheme.go:100',
  internalType: '*eventratelimit.Configuration',
  // runtime.NewScheme + serializer.NewCodecFactory: not strict.
  strict: false,
  validate: validateConfiguration,
  fileError: (p) => p.detail,
});

/** kube's ValidateConfiguration. */
function validateConfiguration(c: EventRateLimitConfiguration): FieldError[] {
  const errs: FieldError[] = [];
  const limitsPath = FieldPath.root('limits');
  const limits = c.limits ?? [];
  if (limits.length === 0) {
    // Go's %#v of the internal slice: nil, or empty.
    const badValueText = c.limits === undefined ? '[]eventratelimit.Limit(nil)' : '[]eventratelimit.Limit{}';
    errs.push({ type: 'FieldValueInvalid', field: String(limitsPath), badValueText, detail: 'must not be empty' });
  }
  limits.forEach((limit, i) => {
    const at = limitsPath.index(i);
    if (!(LIMIT_TYPES as readonly string[]).includes(limit.type)) errs.push(fieldErrors.notSupported(at.child('type'), limit.type, [...LIMIT_TYPES]));
    if (limit.burst <= 0) errs.push(fieldErrors.invalid(at.child('burst'), limit.burst, 'must be positive'));
    if (limit.qps <= 0) errs.push(fieldErrors.invalid(at.child('qps'), limit.qps, 'must be positive'));
    if (limit.type !== 'Server' && limit.cacheSize < 0) errs.push(fieldErrors.invalid(at.child('cacheSize'), limit.cacheSize, 'must not be negative'));
  });
  return errs;
}

/**
 * The plugin's configuration as kube's factory reads it: decoded and validated from `source`, or,
 * with none, the empty configuration, which validation refuses (kube requires at least one limit).
 */
export function loadEventRateLimitConfig(source: ConfigSource | undefined): EventRateLimitConfiguration {
  if (source) return loadConfig(source, eventRateLimitConfigKind);
  const empty: EventRateLimitConfiguration = { limits: undefined };
  const errs = validateConfiguration(empty);
  if (errs.length) throw new Error(aggregateMessages(errs.map(fieldErrorString)));
  return empty;
}
