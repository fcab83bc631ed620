/**
 * events.k8s.io/v1 Event ↔ core/v1 Event, the form every Event is stored in (kube:
 * pkg/apis/events/v1/conversion.go through the internal type). Most fields keep their name; six
 * are renamed: note ↔ message, regarding ↔ involvedObject, reportingController ↔
 * reportingComponent, deprecatedSource ↔ source, deprecatedFirstTimestamp/LastTimestamp/Count ↔
 * firstTimestamp/lastTimestamp/count.
 *
 * Each side is written as kube's Go types serialise it: fields in struct order, empty strings and
 * zero counts left out where the JSON tag says omitempty, and the struct-valued fields without a
 * pointer always there (`{}` for an empty reference or source, `null` for an unset time). So an
 * event written through one API reads through the other exactly as a kube-apiserver shows it.
 */
import type { KubeObject } from '../../../api';

const empty = (v: unknown): boolean => v === undefined || v === null || v === '' || v === 0;

/** Copies `value` under `key` unless it is Go's zero value for an omitempty field. */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (!empty(value)) out[key] = value;
}

/** A struct-valued field with no pointer: Go always writes it, `{}` when unset. */
const struct = (v: unknown): unknown => (v === undefined || v === null ? {} : v);
/** A metav1.Time or MicroTime with no pointer: Go writes an unset one as null. */
const time = (v: unknown): unknown => (v === undefined || v === '' ? null : v);

/** A core/v1 Event (as stored) as an events.k8s.io/v1 Event. */
export function eventFromCore(core: KubeObject): KubeObject {
  const out: KubeObject = { kind: 'Event', apiVersion: 'events.k8s.io/v1', metadata: core.metadata };
  out.eventTime = time(core.eventTime);
  put(out, 'series', core.series);
  put(out, 'reportingController', core.reportingComponent);
  put(out, 'reportingInstance', core.reportingInstance);
  put(out, 'action', core.action);
  put(out, 'reason', core.reason);
  out.regarding = struct(core.involvedObject);
  put(out, 'related', core.related);
  put(out, 'note', core.message);
  put(out, 'type', core.type);
  out.deprecatedSource = struct(core.source);
  out.deprecatedFirstTimestamp = time(core.firstTimestamp);
  out.deprecatedLastTimestamp = time(core.lastTimestamp);
  put(out, 'deprecatedCount', core.count);
  return out;
}

/** An events.k8s.io/v1 Event as the core/v1 Event it is stored as. */
export function eventToCore(ev: KubeObject): KubeObject {
  const out: KubeObject = { kind: 'Event', apiVersion: 'v1', metadata: { ...ev.metadata } };
  out.involvedObject = struct(ev.regarding);
  put(out, 'reason', ev.reason);
  put(out, 'message', ev.note);
  out.source = struct(ev.deprecatedSource);
  out.firstTimestamp = time(ev.deprecatedFirstTimestamp);
  out.lastTimestamp = time(ev.deprecatedLastTimestamp);
  put(out, 'count', ev.deprecatedCount);
  put(out, 'type', ev.type);
  out.eventTime = time(ev.eventTime);
  put(out, 'series', ev.series);
  put(out, 'action', ev.action);
  put(out, 'related', ev.related);
  // core/v1 reportingComponent and reportingInstance have no omitempty.
  out.reportingComponent = ev.reportingController ?? '';
  out.reportingInstance = ev.reportingInstance ?? '';
  return out;
}
