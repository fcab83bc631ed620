/** What a handler passes down with every registry call (never express's req/res). */
import type { UserInfo } from './user-info';

export interface RequestContext {
  user?: UserInfo;
  /** The request's namespace ("" for cluster-scoped or all-namespaces). */
  namespace: string;
  /** Warnings to return as `Warning: 299 - "..."` headers. */
  warnings: string[];
  dryRun: boolean;
  signal?: AbortSignal;
  now: () => Date;
}
