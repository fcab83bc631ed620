/** POST to a collection. */
import { startTurns, yieldIfBusy } from '../../api';
import { checkResponseOptions, negotiate, writeObject } from '../responses';
import type { HandlerScope } from '../scope';
import { trackUpdate, validateManagerParam } from './field-manager';
import { parseDryRun, readObjectBody } from './write-options';

export async function createHandler(s: HandlerScope): Promise<void> {
  startTurns(s.ctx);
  const target = negotiate(s);
  s.ctx.dryRun = parseDryRun(s, 'CreateOptions');
  validateManagerParam(s, 'CreateOptions');
  const body = await readObjectBody(s);
  await yieldIfBusy(s.ctx);
  const obj = await trackUpdate(s, null, body);
  checkResponseOptions(s, target);
  await yieldIfBusy(s.ctx);
  const created = await s.store.create(s.ctx, obj);
  await yieldIfBusy(s.ctx);
  writeObject(s, 201, created, target);
}
