// ClusterSummaries and ClusterReports are the hub's record of what a profile delivered: only its add-on
// controllers (through the store) write them; every write through the API is refused, naming the way out.
import { errors } from '../../util/errors.js';
import type { GuardRequest } from '../types.js';
import { SVELTOS_GROUP } from './names.js';

export function refuseGenerated(kind: string, plural: string, request: GuardRequest): never {
  const name = (request.old ?? request.obj)?.metadata.name ?? '';
  throw errors.forbidden(
    `${kind} ${name} is written by the hub's add-on controllers only (${request.operation} refused): change the ClusterProfile or Profile instead`,
    plural,
    SVELTOS_GROUP,
    name,
  );
}
