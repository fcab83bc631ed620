/** Query options shared by the write verbs: dryRun, fieldValidation, fieldManager; body decoding into the kind. */
import { KubeObject, apiVersionOf, errors, fieldErrors, isObject, parseApiVersion, beginHeavy, loopHeld, nextTurn } from '../../api';
import { decodeBodySync, decodeYamlBody } from '../codec';
import { readBody } from '../body';
import { appendWarnings } from '../warnings';
import { jsonDuplicateFields, yamlUnmarshalErrors } from '../duplicate-fields';
import { requestBodyFormat, supportedMediaTypes } from '../negotiation';
import { protobufServes } from '../responses';
import type { HandlerScope } from '../scope';
import { bodyWorkerThreshold, decodeLargeJson, withCloseSignal, type PruneTarget } from '../body-worker';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** `dryRun` accepts only `All` (several values may be repeated); anything else is 422 on <Op>Options. */
export function parseDryRun(s: HandlerScope, optionsKind: string): boolean {
  const raw = s.req.query.dryRun;
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
  for (const v of values) {
    if (v !== 'All') {
      throw errors.invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', [fieldErrors.notSupported('dryRun', v, ['All'])]);
    }
  }
  return values.length > 0;
}

/** The fieldManager and fieldValidation the query gave, as kube's *Options hold them (RequestContext.writeOptions). */
export function queryWriteOptions(s: HandlerScope): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (s.query.fieldManager) out.fieldManager = s.query.fieldManager;
  if (s.query.fieldValidation) out.fieldValidation = s.query.fieldValidation;
  return out;
}

export function parseFieldValidation(s: HandlerScope): FieldValidation {
  const v = s.query.fieldValidation ?? '';
  if (v === '' || v === 'Warn') return 'Warn';
  if (v === 'Ignore' || v === 'Strict') return v;
  throw errors.badRequest(`fieldValidation must be one of "Ignore", "Warn", or "Strict", got: ${v}`);
}

/**
 * Checks a decoded object against the endpoint's kind and schema: apiVersion/kind defaulted from
 * the endpoint when absent, mismatches rejected, type errors → 400, unknown fields handled per
 * fieldValidation (Strict → 400, Warn → warnings) and pruned.
 */
/**
 * Problems only strict decoding sees (duplicate keys), as the Strict error texts and the Warn
 * warning texts (kube splits a YAML error into one warning per line).
 */
export interface StrictProblems {
  strict: string[];
  warn: string[];
}

/**
 * `cutUnknown`: unknown fields already cut out of `raw` (body-worker.ts), reported before the
 * decoder's own.
 */
export function admitObject(
  s: HandlerScope,
  raw: unknown,
  validation: FieldValidation,
  extra: StrictProblems = { strict: [], warn: [] },
  cutUnknown: string[] = [],
): KubeObject {
  const def = s.store.def;
  const expected = apiVersionOf(def);
  if (!isObject(raw)) {
    throw errors.badRequest(`the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: body is not an object`);
  }
  let apiVersion = typeof raw.apiVersion === 'string' && raw.apiVersion !== '' ? raw.apiVersion : expected;
  const kind = typeof raw.kind === 'string' && raw.kind !== '' ? raw.kind : def.kind;
  const gv = parseApiVersion(apiVersion);
  // A version the endpoint also takes (kube's GroupVersionAcceptor) is read as its own.
  if (def.alsoAccepts?.includes(apiVersion)) apiVersion = expected;
  else if (gv.group !== def.group || gv.version !== def.version) {
    throw errors.badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${expected})`);
  }
  if (kind !== def.kind) {
    throw errors.badRequest(`${kind} in version "${def.version}" cannot be handled as a ${def.kind}: no kind "${kind}" is registered for version "${apiVersion}" in scheme`);
  }
  // The decoder never mutates its input: when apiVersion and kind are already in place, the body is
  // decoded as it is (a copy of a 300k-key object costs more than the decode); a fast-path result
  // that is the input itself is copied after, so the caller still gets an object of its own.
  const sameHead = raw.apiVersion === apiVersion && raw.kind === kind;
  const decoded = s.schemas.decode(def.schemaName, sameHead ? raw : { ...raw, apiVersion, kind });
  const unknownFields = cutUnknown.length ? cutUnknown.concat(decoded.unknownFields) : decoded.unknownFields;
  if ((unknownFields.length || extra.strict.length) && validation !== 'Ignore') {
    if (validation === 'Strict') {
      const msgs = [...unknownFields.map((f) => `unknown field "${f}"`), ...extra.strict];
      throw errors.badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: strict decoding error: ${msgs.join(', ')}`);
    }
    // Only as many as the warning recorder keeps: a body may carry hundreds of thousands.
    appendWarnings(s.ctx.warnings, unknownFields.length, (i) => `unknown field "${unknownFields[i]}"`);
    appendWarnings(s.ctx.warnings, extra.warn.length, (i) => extra.warn[i] as string);
  }
  const obj = sameHead && decoded.object === raw ? ({ ...raw } as KubeObject) : decoded.object;
  if (!isObject(obj.metadata)) obj.metadata = {};
  return obj;
}

/** Bodies from this size on may hold the event loop: their request arms the checkpoints (api/turns.ts) until it is answered. */
const heavyBodyBytes = 64 * 1024;

/** Arms the checkpoints for a request with a large body, until its response closes. */
export function markIfHeavy(s: HandlerScope, bodyBytes: number): void {
  if (bodyBytes >= heavyBodyBytes) s.res.once('close', beginHeavy());
}

/** Reads and decodes the request body of a create/update (JSON, YAML, protobuf, or CBOR while its gate is on) into the endpoint's kind. */
export async function readObjectBody(s: HandlerScope): Promise<KubeObject> {
  const format = requestBodyFormat(s.req.headers['content-type'], { cbor: !!s.cbor });
  const body = await readBody(s.req);
  markIfHeavy(s, body.length);
  // The body's work starts this turn's clock (api/turns.ts), so the decode below is counted.
  if (loopHeld()) await nextTurn();
  if (format === 'protobuf' && !protobufServes(s)) throw errors.unsupportedMediaType(supportedMediaTypes({ cbor: !!s.cbor, protobuf: false }));
  const validation = parseFieldValidation(s);
  const prune: PruneTarget = { registry: s.schemas, schemaName: s.store.def.schemaName, mode: 'object' };
  if (format === 'yaml') {
    // Repeated keys are not a decode error for YAML: strict decoding reports them (kube's YAML path).
    // A client that goes away takes its body out of the decoder's queue.
    const d = await withCloseSignal(s.res, (signal) => decodeYamlBody(body, s.store.def.kind, signal, prune));
    if (loopHeld()) await nextTurn();
    const strict = d.duplicates.length ? [yamlUnmarshalErrors(d.duplicates)] : [];
    return admitObject(s, d.value, validation, { strict, warn: d.duplicates }, d.unknownFields);
  }
  // A large JSON body is parsed, checked for repeated keys and cut of its unknown fields off the loop.
  // (a body of fewer bytes than the threshold has fewer characters: no text is made, no signal set up)
  const large =
    format === 'json' && body.length >= bodyWorkerThreshold
      ? await withCloseSignal(s.res, (signal) => decodeLargeJson(body.toString('utf8'), { duplicates: validation !== 'Ignore', prune }, signal))
      : undefined;
  let raw: unknown;
  let duplicates: string[];
  if (large) {
    ({ value: raw, duplicates } = large);
  } else {
    raw = decodeBodySync(body, format, s.store.def.kind, s.protobuf, s.store.apiVersion, s.cbor);
    if (loopHeld()) await nextTurn();
    duplicates = format === 'json' && validation !== 'Ignore' ? jsonDuplicateFields(body.toString('utf8'), raw) : [];
  }
  if (loopHeld()) await nextTurn();
  const msgs = duplicates.map((f) => `duplicate field "${f}"`);
  return admitObject(s, raw, validation, { strict: msgs, warn: msgs }, large?.unknownFields);
}
