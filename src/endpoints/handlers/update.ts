/** PUT of an object (or of its status/finalize subresource). */
import { errors, cloneJson, loopHeld, nextTurn } from '../../api';
import { checkResponseOptions, negotiate, writeObject } from '../responses';
import type { HandlerScope } from '../scope';
import { trackUpdate, validateManagerParam } from './field-manager';
import { parseDryRun, queryWriteOptions, readObjectBody } from './write-options';

export async function updateHandler(s: HandlerScope): Promise<void> {
  const target = negotiate(s);
  s.ctx.dryRun = parseDryRun(s, 'UpdateOptions');
  validateManagerParam(s, 'UpdateOptions');
  s.ctx.writeOptions = queryWriteOptions(s);
  const obj = await readObjectBody(s);
  const bodyName = obj.metadata.name ?? '';
  if (bodyName !== s.info.name) {
    throw errors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${s.info.name})`);
  }
  checkResponseOptions(s, target);
  const r = await s.store.update(
    s.ctx,
    s.info.name,
    async (current) => {
      if (loopHeld()) await nextTurn();
      return trackUpdate(s, current, cloneJson(obj));
    },
    // The field manager only reads the current object: no copy of it for the callback.
    { subresource: s.info.subresource || undefined, updatedReadsCurrent: true },
  );
  if (loopHeld()) await nextTurn();
  writeObject(s, r.created ? 201 : 200, r.object, target);
}
