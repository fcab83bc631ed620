/** POST to a collection. */
import { writeObject, negotiate } from '../responses';
import type { HandlerScope } from '../scope';
import { parseDryRun, readObjectBody } from './write-options';

export async function createHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  s.ctx.dryRun = parseDryRun(s, 'CreateOptions');
  const obj = await readObjectBody(s);
  const created = await s.store.create(s.ctx, obj);
  writeObject(s, 201, created, target);
}
