// Turns a request path into Kubernetes request attributes (group, version, namespace, resource,
// name, subresource, verb), the same way kube-apiserver's RequestInfoFactory does.

export type RequestVerb =
  'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceRequestInfo {
  isResourceRequest: true;
  path: string;
  verb: RequestVerb;
  apiPrefix: 'api' | 'apis';
  group: string;
  version: string;
  namespace: string;
  resource: string;
  name: string;
  subresource: string;
}

export interface NonResourceRequestInfo {
  isResourceRequest: false;
  path: string;
  /** Lower-case HTTP method, as RBAC nonResourceURLs rules see it. */
  verb: string;
}

export type RequestInfo = ResourceRequestInfo | NonResourceRequestInfo;

/** Namespace subresources: `/api/v1/namespaces/{name}/status` is not a resource named "status". */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const parts = path
    .split('/')
    .filter((p) => p.length > 0)
    .map(decodeURIComponent);
  const nonResource = (): NonResourceRequestInfo => ({
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
  });
  const prefix = parts[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResource();
  let rest: string[];
  let group = '';
  let version: string;
  if (prefix === 'api') {
    if (parts.length < 3) return nonResource();
    version = parts[1]!;
    rest = parts.slice(2);
  } else {
    if (parts.length < 4) return nonResource();
    group = parts[1]!;
    version = parts[2]!;
    rest = parts.slice(3);
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1]!;
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]!)) rest = rest.slice(2);
  }
  const resource = rest[0] ?? '';
  const name = rest[1] ?? '';
  const subresource = rest[2] ?? '';
  // `/api/v1/namespaces/foo` is the namespace foo itself, not a namespaced request.
  if (resource === 'namespaces' && rest.length > 1) namespace = '';
  if (rest.length > 3) return nonResource();
  let verb: RequestVerb;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = name ? 'get' : isWatch(query) ? 'watch' : 'list';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name ? 'delete' : 'deletecollection';
      break;
    default:
      return nonResource();
  }
  return {
    isResourceRequest: true,
    path,
    verb,
    apiPrefix: prefix,
    group,
    version,
    namespace,
    resource,
    name,
    subresource,
  };
}

function isWatch(query: URLSearchParams): boolean {
  const watch = query.get('watch');
  return watch === 'true' || watch === '1';
}
