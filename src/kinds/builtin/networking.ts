// networking.k8s.io/v1 Ingress, IngressClass, NetworkPolicy and ServiceCIDR of a simulated cluster: printers,
// kube's NetworkPolicy defaults, and the Ingress pathType rule charts most often trip over.
import type { KubeObject } from '../../store/types.js';
import type { StatusCause } from '../../util/errors.js';
import { protoSchema } from '../proto-schema.js';
import type { KindDefinition } from '../types.js';
import {
  AGE,
  at,
  child,
  col,
  defaultPtr,
  formatSelector,
  isObj,
  list,
  spec,
  status,
  str,
} from './kube-helpers.js';

const GROUP = 'networking.k8s.io';

function ingressHosts(o: KubeObject): string {
  const hosts = list(spec(o).rules)
    .map((r) => str(r.host))
    .filter(Boolean);
  if (hosts.length === 0) return '*';
  const max = 4;
  if (hosts.length <= max) return hosts.join(',');
  return `${hosts.slice(0, max).join(',')} + ${hosts.length - max} more...`;
}

function ingressAddress(o: KubeObject): string {
  return list(at(status(o), 'loadBalancer', 'ingress'))
    .map((i) => str(i.ip) || str(i.hostname))
    .filter(Boolean)
    .join(',');
}

function validateIngress(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  list(spec(obj).rules).forEach((rule, i) =>
    list(at(rule, 'http', 'paths')).forEach((path, j) => {
      const field = `spec.rules[${i}].http.paths[${j}].pathType`;
      if (path.pathType === undefined || path.pathType === '')
        causes.push({
          reason: 'FieldValueRequired',
          message: 'Required value: pathType must be specified',
          field,
        });
      else if (!['Exact', 'Prefix', 'ImplementationSpecific'].includes(str(path.pathType)))
        causes.push({
          reason: 'FieldValueNotSupported',
          message: `Unsupported value: "${str(path.pathType)}": supported values: "Exact", "ImplementationSpecific", "Prefix"`,
          field,
        });
    }),
  );
  return causes;
}

export const Ingress: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'Ingress',
  plural: 'ingresses',
  singular: 'ingress',
  namespaced: true,
  shortNames: ['ing'],
  schema: protoSchema('networking.v1.Ingress'),
  subresources: { status: true },
  printerColumns: [
    col(
      'Class',
      'string',
      'The name of the IngressClass resource.',
      (o) => str(spec(o).ingressClassName) || '<none>',
    ),
    col(
      'Hosts',
      'string',
      'Hosts that incoming requests are matched against before the ingress rule',
      ingressHosts,
    ),
    col(
      'Address',
      'string',
      'Address is a list containing ingress points for the load-balancer',
      ingressAddress,
    ),
    col('Ports', 'string', 'Ports of TLS configurations that open', (o) =>
      list(spec(o).tls).length ? '80, 443' : '80',
    ),
    AGE,
  ],
  defaults(obj) {
    child(obj, 'spec');
    obj.status = { loadBalancer: {} };
  },
  validate: validateIngress,
};

export const IngressClass: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'IngressClass',
  plural: 'ingressclasses',
  singular: 'ingressclass',
  namespaced: false,
  schema: protoSchema('networking.v1.IngressClass'),
  printerColumns: [
    col('Controller', 'string', 'Controller that is responsible for handling this class', (o) =>
      str(spec(o).controller),
    ),
    col('Parameters', 'string', 'A reference to a resource with additional parameters', (o) => {
      const p = spec(o).parameters;
      if (!isObj(p)) return '<none>';
      const group = str(p.apiGroup);
      return `${str(p.kind)}${group ? `.${group}` : ''}/${str(p.name)}`;
    }),
    AGE,
  ],
};

export const NetworkPolicy: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'NetworkPolicy',
  plural: 'networkpolicies',
  singular: 'networkpolicy',
  namespaced: true,
  shortNames: ['netpol'],
  schema: protoSchema('networking.v1.NetworkPolicy'),
  printerColumns: [
    col(
      'Pod-Selector',
      'string',
      'podSelector selects the pods to which this NetworkPolicy object applies.',
      (o) => formatSelector(spec(o).podSelector),
    ),
    AGE,
  ],
  defaults(obj) {
    const sp = child(obj, 'spec');
    child(sp, 'podSelector');
    for (const rule of [...list(sp.ingress), ...list(sp.egress)])
      for (const port of list(rule.ports)) defaultPtr(port, 'protocol', 'TCP');
    if (!Array.isArray(sp.policyTypes) || sp.policyTypes.length === 0)
      sp.policyTypes = list(sp.egress).length ? ['Ingress', 'Egress'] : ['Ingress'];
  },
};

/** The Service IP ranges (GA in 1.33): the `kubernetes` object holds the range the API server was given. */
export const ServiceCIDR: KindDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'ServiceCIDR',
  plural: 'servicecidrs',
  singular: 'servicecidr',
  namespaced: false,
  schema: protoSchema('networking.v1.ServiceCIDR'),
  subresources: { status: true },
  printerColumns: [
    col('CIDRs', 'string', 'cidrs indicates the IPv4 and/or IPv6 address ranges of the ServiceCIDR', (o) =>
      (Array.isArray(spec(o).cidrs) ? (spec(o).cidrs as unknown[]) : []).map(String).join(','),
    ),
    AGE,
  ],
};

export const networkingKinds: readonly KindDefinition[] = [Ingress, IngressClass, NetworkPolicy, ServiceCIDR];
