export type { RequestContext } from '../api/request-context';
