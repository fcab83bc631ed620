/**
 * kube's Event validation (pkg/apis/core/validation/events.go, ValidateEventCreate and
 * ValidateEventUpdate), over the core/v1 form every Event is stored in. kube validates its
 * internal type, so the field paths are core's (`involvedObject.namespace`, `message`,
 * `firstTimestamp`) whichever API the event came through; only the reporting controller is named
 * as the request's version names it. A request to core/v1 gets the legacy checks only; newer
 * versions (events.k8s.io/v1) get the strict ones too. Object metadata is validated by the store.
 */
import { FieldError, KubeObject, fieldErrors, goQuote } from '../../../api';
import { isQualifiedName } from '../../../api/labels';
import { byteLength, isDNS1123Subdomain } from '../../../api/names';

/** The API an event was written through: core/v1 keeps kube's backward-compatible rules. */
export type EventRequestVersion = 'v1' | 'events.k8s.io/v1';

const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
const ACTION_LENGTH_LIMIT = 128;
const REASON_LENGTH_LIMIT = 128;
const NOTE_LENGTH_LIMIT = 1024;

/** core/v1 ObjectReference (an event's involvedObject and related). */
export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

interface Series {
  count?: number;
  lastObservedTime?: string | null;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' ? v : 0);
const ref = (v: unknown): ObjectReference | undefined => (v && typeof v === 'object' ? (v as ObjectReference) : undefined);
const source = (e: KubeObject): { component?: string; host?: string } => (e.source as { component?: string; host?: string } | null | undefined) ?? {};
const series = (e: KubeObject): Series | undefined => (e.series && typeof e.series === 'object' ? (e.series as Series) : undefined);

/** Go's zero time: 0001-01-01T00:00:00Z, in Unix milliseconds. */
const GO_ZERO_MS = -62135596800000;
const TIME_RE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i;

/** A metav1.Time or MicroTime as UTC seconds and a 9-digit fraction; null when unset or zero. */
function parseTime(v: unknown): { seconds: number; nanos: string } | null {
  if (typeof v !== 'string') return null;
  const m = TIME_RE.exec(v);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}${(m[3] as string).toUpperCase()}`);
  if (Number.isNaN(ms) || ms === GO_ZERO_MS) return null;
  return { seconds: ms / 1000, nanos: (m[2] ?? '').padEnd(9, '0').slice(0, 9) };
}

const isZeroTime = (v: unknown): boolean => parseTime(v) === null;

/** The time to the microsecond, for comparisons (kube's Semantic equality and eventTime's truncation). */
function micros(v: unknown): string {
  const t = parseTime(v);
  return t ? `${t.seconds}.${t.nanos.slice(0, 6)}` : 'zero';
}

/** Go's time.Time String() of a time in UTC (`2024-05-01 10:00:00.5 +0000 UTC`), the bad value kube prints. */
function goTimeText(v: unknown): string {
  const t = parseTime(v);
  if (!t) return '0001-01-01 00:00:00 +0000 UTC';
  const iso = new Date(t.seconds * 1000).toISOString();
  const fraction = t.nanos.replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''} +0000 UTC`;
}

/** Go's %#v of the internal core.ObjectReference. */
function refText(r: ObjectReference): string {
  const q = (v: string | undefined): string => goQuote(v ?? '');
  return `core.ObjectReference{Kind:${q(r.kind)}, Namespace:${q(r.namespace)}, Name:${q(r.name)}, UID:${q(r.uid)}, APIVersion:${q(r.apiVersion)}, ResourceVersion:${q(r.resourceVersion)}, FieldPath:${q(r.fieldPath)}}`;
}

const refKey = (r: ObjectReference | undefined): string =>
  r ? JSON.stringify([r.kind ?? '', r.namespace ?? '', r.name ?? '', r.uid ?? '', r.apiVersion ?? '', r.resourceVersion ?? '', r.fieldPath ?? '']) : 'nil';

/** kube's legacyValidateEvent: what every event must satisfy, whichever API wrote it. */
function legacyValidateEvent(e: KubeObject, requestVersion: EventRequestVersion): FieldError[] {
  const errs: FieldError[] = [];
  const ns = e.metadata.namespace ?? '';
  const involvedNs = ref(e.involvedObject)?.namespace ?? '';
  const reportingField = requestVersion === 'v1' ? 'reportingComponent' : 'reportingController';
  if (isZeroTime(e.eventTime)) {
    // An old-style event: its namespace and its object's must agree ("default" stands for none).
    if (involvedNs === '' ? ns !== '' && ns !== 'default' : ns !== involvedNs) {
      errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
  } else {
    if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') {
      errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    }
    const controller = str(e.reportingComponent);
    if (controller === '') errs.push(fieldErrors.required(reportingField));
    for (const msg of isQualifiedName(controller)) errs.push(fieldErrors.invalid(reportingField, controller, msg));
    const instance = str(e.reportingInstance);
    if (instance === '') errs.push(fieldErrors.required('reportingInstance'));
    if (byteLength(instance) > REPORTING_INSTANCE_LENGTH_LIMIT) {
      errs.push(fieldErrors.invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LENGTH_LIMIT} characters`));
    }
    const action = str(e.action);
    if (action === '') errs.push(fieldErrors.required('action'));
    if (byteLength(action) > ACTION_LENGTH_LIMIT) errs.push(fieldErrors.invalid('action', '', `can have at most ${ACTION_LENGTH_LIMIT} characters`));
    const reason = str(e.reason);
    if (reason === '') errs.push(fieldErrors.required('reason'));
    if (byteLength(reason) > REASON_LENGTH_LIMIT) errs.push(fieldErrors.invalid('reason', '', `can have at most ${REASON_LENGTH_LIMIT} characters`));
    if (byteLength(str(e.message)) > NOTE_LENGTH_LIMIT) errs.push(fieldErrors.invalid('message', '', `can have at most ${NOTE_LENGTH_LIMIT} characters`));
  }
  for (const msg of isDNS1123Subdomain(ns)) errs.push(fieldErrors.invalid('namespace', ns, msg));
  return errs;
}

/** kube's validateV1EventSeries. */
function validateSeries(e: KubeObject): FieldError[] {
  const s = series(e);
  if (!s) return [];
  const errs: FieldError[] = [];
  if (num(s.count) < 2) errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (isZeroTime(s.lastObservedTime)) errs.push(fieldErrors.required('series.lastObservedTime'));
  return errs;
}

/** kube's ValidateEventCreate; `e` is the core/v1 form. */
export function validateEventCreate(e: KubeObject, requestVersion: EventRequestVersion): FieldError[] {
  const errs = legacyValidateEvent(e, requestVersion);
  // core/v1 keeps the old rules, for old clients.
  if (requestVersion === 'v1') return errs;
  errs.push(...validateSeries(e));
  if (isZeroTime(e.eventTime)) errs.push(fieldErrors.required('eventTime'));
  const type = str(e.type);
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldErrors.invalid('type', '', `has invalid value: ${type}`));
  if (!isZeroTime(e.firstTimestamp)) errs.push(fieldErrors.invalid('firstTimestamp', '', 'needs to be unset'));
  if (!isZeroTime(e.lastTimestamp)) errs.push(fieldErrors.invalid('lastTimestamp', '', 'needs to be unset'));
  if (num(e.count) !== 0) errs.push(fieldErrors.invalid('count', '', 'needs to be unset'));
  const src = source(e);
  if (str(src.component) !== '' || str(src.host) !== '') errs.push(fieldErrors.invalid('source', '', 'needs to be unset'));
  return errs;
}

/** kube's ValidateImmutableField: the new value, printed as Go prints it, when it differs. */
function immutable(errs: FieldError[], path: string, changed: boolean, badValueText: string): void {
  if (changed) errs.push({ type: 'FieldValueInvalid', field: path, badValueText, detail: 'field is immutable' });
}

/** kube's ValidateEventUpdate; `e` and `old` are core/v1 forms. */
export function validateEventUpdate(e: KubeObject, old: KubeObject, requestVersion: EventRequestVersion): FieldError[] {
  const errs = legacyValidateEvent(e, requestVersion);
  if (requestVersion === 'v1') return errs;
  const [s, os] = [series(e), series(old)];
  const seriesKey = (x: Series | undefined): string => (x ? `${num(x.count)}/${micros(x.lastObservedTime)}` : 'nil');
  if (seriesKey(s) !== seriesKey(os)) errs.push(...validateSeries(e));

  const q = (v: unknown): string => goQuote(str(v));
  const [r, or] = [ref(e.involvedObject) ?? {}, ref(old.involvedObject) ?? {}];
  immutable(errs, 'involvedObject', refKey(r) !== refKey(or), refText(r));
  immutable(errs, 'reason', str(e.reason) !== str(old.reason), q(e.reason));
  immutable(errs, 'message', str(e.message) !== str(old.message), q(e.message));
  const [src, osrc] = [source(e), source(old)];
  const sourceChanged = str(src.component) !== str(osrc.component) || str(src.host) !== str(osrc.host);
  immutable(errs, 'source', sourceChanged, `core.EventSource{Component:${q(src.component)}, Host:${q(src.host)}}`);
  immutable(errs, 'firstTimestamp', micros(e.firstTimestamp) !== micros(old.firstTimestamp), goTimeText(e.firstTimestamp));
  immutable(errs, 'lastTimestamp', micros(e.lastTimestamp) !== micros(old.lastTimestamp), goTimeText(e.lastTimestamp));
  immutable(errs, 'count', num(e.count) !== num(old.count), String(num(e.count)));
  // kube checks reason twice.
  immutable(errs, 'reason', str(e.reason) !== str(old.reason), q(e.reason));
  immutable(errs, 'type', str(e.type) !== str(old.type), q(e.type));
  // Sub-microsecond differences are tolerated (clients truncate to microseconds when they serialise).
  immutable(errs, 'eventTime', micros(e.eventTime) !== micros(old.eventTime), goTimeText(e.eventTime));
  immutable(errs, 'action', str(e.action) !== str(old.action), q(e.action));
  const [rel, orel] = [ref(e.related), ref(old.related)];
  immutable(errs, 'related', refKey(rel) !== refKey(orel), rel ? refText(rel) : 'null');
  immutable(errs, 'reportingController', str(e.reportingComponent) !== str(old.reportingComponent), q(e.reportingComponent));
  immutable(errs, 'reportingInstance', str(e.reportingInstance) !== str(old.reportingInstance), q(e.reportingInstance));
  return errs;
}
