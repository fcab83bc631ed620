/** DELETE of one object and of a collection, with DeleteOptions from the body and the query. */
import { errors, fieldErrors, FieldError, isObject } from '../../api';
import type { Authorizer } from '../../auth';
import type { DeleteOptions } from '../../registry';
import { readBody } from '../body';
import { decodeBody } from '../codec';
import { requestBodyFormat } from '../negotiation';
import { checkResponseOptions, negotiate, writeList, writeObject } from '../responses';
import type { HandlerScope } from '../scope';
import { listQuery, parseIntParam } from './read';
import { queryBool } from '../query-bool';
import { parseDryRun } from './write-options';
import { authorizationAttributes } from '../authorization-attributes';

const deleteOptionsGK = { group: 'meta.k8s.io', kind: 'DeleteOptions' };
const policies = ['Foreground', 'Background', 'Orphan'];

/** DeleteOptions as the handlers use them: the registry's, dry run, and the unsafe-deletion option. */
type HandlerDeleteOptions = DeleteOptions & { dryRun: boolean; ignoreStoreReadErrorWithClusterBreakingPotential?: boolean };

/** The option's name, which is also its field path in kube's errors. */
const ignoreReadError = 'ignoreStoreReadErrorWithClusterBreakingPotential';

async function deleteOptions(s: HandlerScope): Promise<HandlerDeleteOptions> {
  const opts: HandlerDeleteOptions = { dryRun: parseDryRun(s, 'DeleteOptions') };
  const body = await readBody(s.req);
  if (body.length > 0) {
    const format = requestBodyFormat(s.req.headers['content-type'], { cbor: !!s.cbor });
    const raw = await decodeBody(body, format, 'DeleteOptions', s.protobuf, undefined, s.cbor);
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
    if (typeof raw[ignoreReadError] === 'boolean') opts.ignoreStoreReadErrorWithClusterBreakingPotential = raw[ignoreReadError];
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
  const orphan = queryBool(s.query.orphanDependents);
  if (orphan !== undefined) opts.orphanDependents = orphan;
  const ignore = queryBool(s.query[ignoreReadError]);
  if (ignore !== undefined) opts.ignoreStoreReadErrorWithClusterBreakingPotential = ignore;
  // kube drops the option while AllowUnsafeMalformedObjectDeletion is off.
  if (!s.unsafeDelete) delete opts.ignoreStoreReadErrorWithClusterBreakingPotential;
  // kube's ValidateDeleteOptions, in its order.
  const errs: FieldError[] = [];
  if (opts.propagationPolicy !== undefined && opts.orphanDependents !== undefined) {
    errs.push(fieldErrors.invalid('propagationPolicy', opts.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  if (opts.propagationPolicy !== undefined && !policies.includes(opts.propagationPolicy)) {
    errs.push(fieldErrors.notSupported('propagationPolicy', opts.propagationPolicy, [...policies, 'nil']));
  }
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
    const conflicting: Array<[boolean, string]> = [
      [opts.dryRun, 'dryRun'],
      [opts.propagationPolicy !== undefined, 'propagationPolicy'],
      [opts.orphanDependents !== undefined, 'orphanDependents'],
      [opts.gracePeriodSeconds !== undefined, 'gracePeriodSeconds'],
      [opts.preconditions !== undefined, 'preconditions'],
    ];
    for (const [set, field] of conflicting) if (set) errs.push(fieldErrors.invalid(ignoreReadError, true, `cannot be set together with .${field}`));
  }
  if (errs.length) throw errors.invalid(deleteOptionsGK, '', errs);
  return opts;
}

/** The DeleteOptions fields a client set, as admission webhooks receive them (dryRun aside). */
function deleteWriteOptions(opts: Awaited<ReturnType<typeof deleteOptions>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (opts.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = opts.gracePeriodSeconds;
  if (opts.preconditions !== undefined) out.preconditions = opts.preconditions;
  if (opts.orphanDependents !== undefined) out.orphanDependents = opts.orphanDependents;
  if (opts.propagationPolicy !== undefined) out.propagationPolicy = opts.propagationPolicy;
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential !== undefined) out.ignoreStoreReadErrorWithClusterBreakingPotential = opts.ignoreStoreReadErrorWithClusterBreakingPotential;
  return out;
}

/** kube's authorizeUnsafeDelete: the option needs the verb unsafe-delete-ignore-read-errors on the object. */
async function authorizeUnsafeDelete(s: HandlerScope, authorizer: Authorizer): Promise<void> {
  const verb = 'unsafe-delete-ignore-read-errors';
  const forbidden = (reason: string) => errors.forbidden(s.store.gr, s.info.name, reason);
  // As the authorization filter: a request without a user is not checked.
  const user = s.ctx.user;
  if (!user) return;
  let d;
  try {
    d = await authorizer.authorize(authorizationAttributes(user, s.info, { verb, subresource: '' }));
  } catch (e) {
    throw forbidden(`error while checking permission for "${verb}", ${(e as Error).message}`);
  }
  if (d.decision !== 'allow') throw forbidden(`not permitted to do "${verb}", reason: ${d.reason ?? ''}`);
}

export async function deleteHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  const opts = await deleteOptions(s);
  checkResponseOptions(s, target);
  s.ctx.dryRun = opts.dryRun;
  s.ctx.writeOptions = deleteWriteOptions(opts);
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential && s.unsafeDelete) {
    if (s.info.subresource) {
      throw errors.forbidden(s.store.gr, s.info.name, 'ignoreStoreReadErrorWithClusterBreakingPotential delete option is not allowed on a subresource or non-resource request');
    }
    await authorizeUnsafeDelete(s, s.unsafeDelete.authorizer);
    const r = await s.store.deleteCorrupt(s.ctx, s.info.name);
    writeObject(s, 200, r.body, target);
    return;
  }
  const r = await s.store.delete(s.ctx, s.info.name, opts);
  // kube: 202 only when the object stays and cascading deletion was asked with orphanDependents=false.
  const code = !r.deleted && opts.orphanDependents === false ? 202 : 200;
  writeObject(s, code, r.body, target);
}

export async function deleteCollectionHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  const opts = await deleteOptions(s);
  if (opts.ignoreStoreReadErrorWithClusterBreakingPotential) {
    throw errors.invalid(deleteOptionsGK, '', [fieldErrors.invalid(ignoreReadError, true, 'is not allowed with DELETECOLLECTION, try again after removing the option')]);
  }
  checkResponseOptions(s, target);
  s.ctx.dryRun = opts.dryRun;
  s.ctx.writeOptions = deleteWriteOptions(opts);
  const list = await s.store.deleteCollection(s.ctx, listQuery(s), opts);
  writeList(s, list, target);
}
