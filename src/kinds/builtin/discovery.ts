// discovery.k8s.io/v1 EndpointSlice of a simulated cluster: kube's printer and port-protocol default.
import type { KubeObject } from '../../store/types.js';
import { protoSchema } from '../proto-schema.js';
import type { KindDefinition } from '../types.js';
import { AGE, col, defaultPtr, list, num, str } from './kube-helpers.js';

function slicePorts(o: KubeObject): string {
  const ports = list(o.ports);
  if (ports.length === 0) return '<unset>';
  return ports.map((p) => (typeof p.port === 'number' ? String(num(p.port)) : '<unset>')).join(',');
}

function sliceEndpoints(o: KubeObject): string {
  const addresses = list(o.endpoints).flatMap((e) =>
    Array.isArray(e.addresses) ? e.addresses.map(String) : [],
  );
  if (addresses.length === 0) return '<unset>';
  const max = 3;
  if (addresses.length <= max) return addresses.join(',');
  return `${addresses.slice(0, max).join(',')} + ${addresses.length - max} more...`;
}

export const EndpointSlice: KindDefinition = {
  group: 'discovery.k8s.io',
  version: 'v1',
  kind: 'EndpointSlice',
  plural: 'endpointslices',
  singular: 'endpointslice',
  namespaced: true,
  schema: protoSchema('discovery.v1.EndpointSlice'),
  printerColumns: [
    col(
      'AddressType',
      'string',
      'addressType specifies the type of address carried by this EndpointSlice.',
      (o) => str(o.addressType),
    ),
    col(
      'Ports',
      'string',
      'ports specifies the list of network ports exposed by each endpoint in this slice.',
      slicePorts,
    ),
    col('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.', sliceEndpoints),
    AGE,
  ],
  defaults(obj) {
    for (const p of list(obj.ports)) {
      defaultPtr(p, 'protocol', 'TCP');
      defaultPtr(p, 'name', '');
    }
  },
};

export const discoveryKinds: readonly KindDefinition[] = [EndpointSlice];
