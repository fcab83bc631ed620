/** kube's RequestInfoFactory: what a path and method mean (verb, group, version, namespace, resource, name, subresource). */

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  verb: string; // get list watch create update patch delete deletecollection ('' for another method); lower-case HTTP method on non-resource paths
  apiPrefix: string; // "api" | "apis" | ""
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after the resource (name, subresource, extra). */
  parts: string[];
}

/** Subresources of a namespace that are not namespaced resources (kube: namespaceSubresources). */
const namespaceSubresources = new Set(['status', 'finalize']);

export function requestInfoFor(method: string, path: string, watchParam: boolean): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  let parts: string[] = [];
  for (const p of path.split('/')) if (p !== '') parts.push(p.includes('%') ? safeDecode(p) : p);
  if (parts[0] !== 'api' && parts[0] !== 'apis') return info;
  info.apiPrefix = parts[0];
  parts = parts.slice(1);
  if (info.apiPrefix === 'apis') {
    if (parts.length < 1) return info;
    info.apiGroup = parts[0] as string;
    parts = parts.slice(1);
  }
  if (parts.length < 1) return info;
  info.apiVersion = parts[0] as string;
  parts = parts.slice(1);
  if (parts.length < 1) return info;
  info.isResourceRequest = true;
  // The deprecated /watch/ prefix kube still serves: GET …/watch/<resource path> is a watch.
  let legacyWatch = false;
  if (parts[0] === 'watch' && (method.toUpperCase() === 'GET' || method.toUpperCase() === 'HEAD')) {
    legacyWatch = true;
    parts = parts.slice(1);
    if (parts.length < 1) return { ...info, isResourceRequest: false };
  }
  if (parts[0] === 'namespaces' && parts.length > 1) {
    info.namespace = parts[1] as string;
    if (parts.length > 2 && !namespaceSubresources.has(parts[2] as string)) parts = parts.slice(2);
  }
  info.parts = parts;
  info.resource = parts[0] ?? '';
  info.name = parts[1] ?? '';
  info.subresource = parts[2] ?? '';
  const m = method.toUpperCase();
  if (legacyWatch) info.verb = 'watch';
  else if (m === 'GET' || m === 'HEAD') info.verb = info.name ? 'get' : watchParam ? 'watch' : 'list';
  else if (m === 'POST') info.verb = 'create';
  else if (m === 'PUT') info.verb = 'update';
  else if (m === 'PATCH') info.verb = 'patch';
  else if (m === 'DELETE') info.verb = info.name ? 'delete' : 'deletecollection';
  // kube: any other method on a resource path has verb "" (authorization sees that; routing answers 405).
  else info.verb = '';
  return info;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
