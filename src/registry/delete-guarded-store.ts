/**
 * The store of a declaration with `refuseDelete` (kube's REST types that wrap Delete, e.g.
 * PriorityClass's, which refuses the system classes): a DELETE of one object asks the declaration
 * first. kube's DeleteCollection deletes each object through the plain store's Delete, not the
 * wrapper, so a collection delete is not asked.
 */
import type { KubeList } from '../api';
import { withNamespace } from '../api/request-context';
import type { RequestContext } from './context';
import { type DeleteOptions, type DeleteResult, GenericStore } from './generic-store';
import type { ListQuery } from './list-options';

/** Marks the contexts of a collection delete's items (the generic store copies the context per item). */
const inCollection = Symbol('collection delete');

type MarkedContext = RequestContext & { [inCollection]?: true };

export class DeleteGuardedStore extends GenericStore {
  override async delete(ctx: RequestContext, name: string, opts: DeleteOptions): Promise<DeleteResult> {
    if (!(ctx as MarkedContext)[inCollection]) {
      const refused = this.def.refuseDelete?.(name);
      if (refused) throw refused;
    }
    return super.delete(ctx, name, opts);
  }

  override async deleteCollection(ctx: RequestContext, query: ListQuery, opts: DeleteOptions): Promise<KubeList> {
    // The copies share the request's warnings and audit annotations, and end with it.
    ctx.auditAnnotations ??= new Map();
    const marked: MarkedContext = Object.assign(withNamespace(ctx, ctx.namespace), { [inCollection]: true as const });
    return super.deleteCollection(marked, query, opts);
  }
}
