/** DELETE of one object and of a collection, with DeleteOptions from the body and the query. */
import { errors, fieldErrors, FieldError, isObject } from '../../api';
import type { DeleteOptions } from '../../registry';
import { readBody } from '../body';
import { decodeBody } from '../codec';
import { requestBodyFormat } from '../negotiation';
import { negotiate, writeList, writeObject } from '../responses';
import type { HandlerScope } from '../scope';
import { listQuery, parseBoolParam, parseIntParam } from './read';
import { parseDryRun } from './write-options';

const deleteOptionsGK = { group: 'meta.k8s.io', kind: 'DeleteOptions' };
const policies = ['Foreground', 'Background', 'Orphan'];

async function deleteOptions(s: HandlerScope): Promise<DeleteOptions & { dryRun: boolean }> {
  const opts: DeleteOptions & { dryRun: boolean } = { dryRun: parseDryRun(s, 'DeleteOptions') };
  const body = await readBody(s.req);
  if (body.length > 0) {
    const format = requestBodyFormat(s.req.headers['content-type'], { cbor: !!s.cbor });
    const raw = decodeBody(body, format, 'DeleteOptions', s.protobuf, undefined, s.cbor);
    if (!isObject(raw)) throw errors.badRequest('the object provided is unrecognized (must be of type DeleteOptions)');
    if (raw.kind !== undefined && raw.kind !== 'DeleteOptions') {
      throw errors.badRequest(`the object provided is unrecognized (must be of type DeleteOptions): unexpected kind ${String(raw.kind)}`);
    }
    if (isObject(raw.preconditions)) {
      opts.preconditions = {};
      if (typeof raw.preconditions.uid === 'string') opts.preconditions.uid = raw.preconditions.uid;
      if (typeof raw.preconditions.resourceVersion === 'string') opts.preconditions.resourceVersion = raw.preconditions.resourceVersion;
    }
    if (typeof raw.propagationPolicy === 'string') opts.propagationPolicy = raw.propagationPolicy;
    if (typeof raw.gracePeriodSeconds === 'number') opts.gracePeriodSeconds = raw.gracePeriodSeconds;
    if (typeof raw.orphanDependents === 'boolean') opts.orphanDependents = raw.orphanDependents;
    if (Array.isArray(raw.dryRun) && raw.dryRun.length) {
      for (const v of raw.dryRun) {
        if (v !== 'All') throw errors.invalid(deleteOptionsGK, '', [fieldErrors.notSupported('dryRun', v, ['All'])]);
      }
      opts.dryRun = true;
    }
  }
  const grace = parseIntParam('gracePeriodSeconds', s.query.gracePeriodSeconds);
  if (grace !== undefined) opts.gracePeriodSeconds = grace;
  if (s.query.propagationPolicy) opts.propagationPolicy = s.query.propagationPolicy;
  const orphan = parseBoolParam(s.query.orphanDependents);
  if (orphan !== undefined) opts.orphanDependents = orphan;
  const errs: FieldError[] = [];
  if (opts.propagationPolicy !== undefined && !policies.includes(opts.propagationPolicy)) {
    errs.push(fieldErrors.notSupported('propagationPolicy', opts.propagationPolicy, [...policies, 'nil']));
  }
  if (opts.propagationPolicy !== undefined && opts.orphanDependents !== undefined) {
    errs.push(fieldErrors.invalid('propagationPolicy', opts.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (errs.length) throw errors.invalid(deleteOptionsGK, '', errs);
  return opts;
}

export async function deleteHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  const opts = await deleteOptions(s);
  s.ctx.dryRun = opts.dryRun;
  const r = await s.store.delete(s.ctx, s.info.name, opts);
  // kube: 202 only when the object stays and cascading deletion was asked with orphanDependents=false.
  const code = !r.deleted && opts.orphanDependents === false ? 202 : 200;
  writeObject(s, code, r.body, target);
}

export async function deleteCollectionHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  const opts = await deleteOptions(s);
  s.ctx.dryRun = opts.dryRun;
  const list = await s.store.deleteCollection(s.ctx, listQuery(s), opts);
  writeList(s, list, target);
}
