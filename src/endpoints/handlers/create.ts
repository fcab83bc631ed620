/** POST to a collection. */
import { loopHeld, nextTurn } from '../../api';
import { checkResponseOptions, negotiate, writeObject } from '../responses';
import type { HandlerScope } from '../scope';
import { trackUpdate, validateManagerParam } from './field-manager';
import { parseDryRun, queryWriteOptions, readObjectBody } from './write-options';

export async function createHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  s.ctx.dryRun = parseDryRun(s, 'CreateOptions');
  validateManagerParam(s, 'CreateOptions');
  s.ctx.writeOptions = queryWriteOptions(s);
  const body = await readObjectBody(s);
  if (loopHeld()) await nextTurn();
  const obj = await trackUpdate(s, null, body);
  checkResponseOptions(s, target);
  if (loopHeld()) await nextTurn();
  // A POST to a subresource names its parent (kube's NamedCreater: serviceaccounts/token).
  const created = s.info.subresource ? await s.store.createSubresource(s.ctx, s.info.name, obj) : await s.store.create(s.ctx, obj);
  if (loopHeld()) await nextTurn();
  writeObject(s, 201, created, target);
}
