/** GET of one object and of a collection. */
import { queryBool } from '../query-bool';
import { errors } from '../../api';
import { type ListQuery, requestListQuery } from '../../registry';
import { negotiate, writeList, writeObject } from '../responses';
import type { HandlerScope } from '../scope';

export async function getHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  const obj = await s.store.get(s.ctx, s.info.name, { resourceVersion: s.query.resourceVersion });
  writeObject(s, 200, obj, target);
}

export async function listHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  const list = await s.store.list(s.ctx, listQuery(s));
  writeList(s, list, target);
}

function parseIntParam(name: string, v: string | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  if (!/^-?[0-9]+$/.test(v)) throw errors.badRequest(`invalid value for ${name}: strconv.ParseInt: parsing "${v}": invalid syntax`);
  return Number(v);
}

/** The list options of a list, watch or deletecollection request, defaulted and checked as kube's handlers do with gate WatchList. */
export function listQuery(s: HandlerScope): ListQuery {
  const q = s.query;
  const query: ListQuery = {
    labelSelector: q.labelSelector,
    fieldSelector: q.fieldSelector,
    limit: parseIntParam('limit', q.limit),
    continue: q.continue || undefined,
    resourceVersion: q.resourceVersion,
    resourceVersionMatch: q.resourceVersionMatch || undefined,
    sendInitialEvents: queryBool(q.sendInitialEvents),
    watch: queryBool(q.watch) ?? false,
  };
  return requestListQuery(query, s.features.watchList);
}

export { parseIntParam };
