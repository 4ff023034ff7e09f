// Protobuf field table for k8s.io/api networking/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const networkingV1: PackageTable = {
  pkg: 'networking.v1',
  kinds: ['IPAddress', 'Ingress', 'IngressClass', 'NetworkPolicy', 'ServiceCIDR'],
  messages: {
    HTTPIngressPath: 'path=1:string backend=2:IngressBackend pathType=3:string?',
    HTTPIngressRuleValue: 'paths=1:HTTPIngressPath[]',
    IPAddress: 'metadata=1:meta.v1.ObjectMeta spec=2:IPAddressSpec',
    IPAddressSpec: 'parentRef=1:ParentReference?',
    IPBlock: 'cidr=1:string except=2:string[]',
    Ingress: 'metadata=1:meta.v1.ObjectMeta spec=2:IngressSpec status=3:IngressStatus',
    IngressBackend: 'resource=3:core.v1.TypedLocalObjectReference? service=4:IngressServiceBackend?',
    IngressClass: 'metadata=1:meta.v1.ObjectMeta spec=2:IngressClassSpec',
    IngressClassParametersReference: `
      apiGroup=1:string? kind=2:string name=3:string scope=4:string? namespace=5:string?
    `,
    IngressClassSpec: 'controller=1:string parameters=2:IngressClassParametersReference?',
    IngressLoadBalancerIngress: 'ip=1:string hostname=2:string ports=4:IngressPortStatus[]',
    IngressLoadBalancerStatus: 'ingress=1:IngressLoadBalancerIngress[]',
    IngressPortStatus: 'port=1:int32 protocol=2:string error=3:string?',
    IngressRule: 'host=1:string ...=2:IngressRuleValue',
    IngressRuleValue: 'http=1:HTTPIngressRuleValue?',
    IngressServiceBackend: 'name=1:string port=2:ServiceBackendPort',
    IngressSpec: `
      defaultBackend=1:IngressBackend? tls=2:IngressTLS[] rules=3:IngressRule[] ingressClassName=4:string?
    `,
    IngressStatus: 'loadBalancer=1:IngressLoadBalancerStatus',
    IngressTLS: 'hosts=1:string[] secretName=2:string',
    NetworkPolicy: 'metadata=1:meta.v1.ObjectMeta spec=2:NetworkPolicySpec',
    NetworkPolicyEgressRule: 'ports=1:NetworkPolicyPort[] to=2:NetworkPolicyPeer[]',
    NetworkPolicyIngressRule: 'ports=1:NetworkPolicyPort[] from=2:NetworkPolicyPeer[]',
    NetworkPolicyPeer: `
      podSelector=1:meta.v1.LabelSelector? namespaceSelector=2:meta.v1.LabelSelector? ipBlock=3:IPBlock?
    `,
    NetworkPolicyPort: 'protocol=1:string? port=2:intstr.IntOrString? endPort=3:int32?',
    NetworkPolicySpec: `
      podSelector=1:meta.v1.LabelSelector ingress=2:NetworkPolicyIngressRule[]
      egress=3:NetworkPolicyEgressRule[] policyTypes=4:string[]
    `,
    ParentReference: 'group=1:string resource=2:string namespace=3:string name=4:string',
    ServiceBackendPort: 'name=1:string number=2:int32',
    ServiceCIDR: 'metadata=1:meta.v1.ObjectMeta spec=2:ServiceCIDRSpec status=3:ServiceCIDRStatus',
    ServiceCIDRSpec: 'cidrs=1:string[]',
    ServiceCIDRStatus: 'conditions=1:meta.v1.Condition[]',
  },
};
