// Per-request state handed to every handler: the parsed request, the kind it targets, the caller,
// and the response warnings accumulated on the way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KindDefinition } from '../kinds/types.js';
import type { ResourceRequestInfo } from './request-info.js';
import type { UserInfo } from './types.js';
import { errors } from '../util/errors.js';
import { fieldManagerFor, validateFieldManagerParam } from './patch/managedfields.js';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  info: ResourceRequestInfo;
  query: URLSearchParams;
  def: KindDefinition;
  /** Storage name of the kind, e.g. `leases.coordination.k8s.io`. */
  resource: string;
  user: UserInfo;
  warnings: string[];
  /** The response code, for the audit record. */
  code: number;
  /** Name of the object a create made (the URL has none), for the audit record. */
  createdName?: string;
}

/** `dryRun=All` or nothing; anything else is a user mistake. */
export function isDryRun(query: URLSearchParams): boolean {
  const values = query.getAll('dryRun');
  if (values.length === 0) return false;
  for (const v of values)
    if (v !== 'All')
      throw errors.badRequest(`dryRun: Unsupported value: "${v}": supported values: "All"`, [
        {
          reason: 'FieldValueNotSupported',
          message: `Unsupported value: "${v}": supported values: "All"`,
          field: 'dryRun',
        },
      ]);
  return true;
}

/** The field manager of a write: `fieldManager`, else the User-Agent's product name, as Kubernetes does. */
export function fieldManagerOf(ctx: Pick<RequestContext, 'query' | 'req'>, isApply: boolean): string {
  const explicit = ctx.query.get('fieldManager') ?? undefined;
  const causes = validateFieldManagerParam(explicit, isApply);
  if (causes.length > 0) throw errors.invalid('PatchOptions', 'meta.k8s.io', '', causes);
  return fieldManagerFor(explicit, ctx.req.headers['user-agent']) || 'unknown';
}
