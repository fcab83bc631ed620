/** POST to a collection. */
import { negotiate, writeObject } from '../responses';
import type { HandlerScope } from '../scope';
import { trackUpdate, validateManagerParam } from './field-manager';
import { parseDryRun, readObjectBody } from './write-options';

export async function createHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  s.ctx.dryRun = parseDryRun(s, 'CreateOptions');
  validateManagerParam(s, 'CreateOptions');
  const obj = trackUpdate(s, null, await readObjectBody(s));
  const created = await s.store.create(s.ctx, obj);
  writeObject(s, 201, created, target);
}
