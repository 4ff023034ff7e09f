// Protobuf field table for k8s.io/api discovery/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const discoveryV1: PackageTable = {
  pkg: 'discovery.v1',
  kinds: ['EndpointSlice'],
  messages: {
    Endpoint: `
      addresses=1:string[] conditions=2:EndpointConditions hostname=3:string?
      targetRef=4:core.v1.ObjectReference? deprecatedTopology=5:map<string,string> nodeName=6:string?
      zone=7:string? hints=8:EndpointHints?
    `,
    EndpointConditions: 'ready=1:bool? serving=2:bool? terminating=3:bool?',
    EndpointHints: 'forZones=1:ForZone[] forNodes=2:ForNode[]',
    EndpointPort: 'name=1:string? protocol=2:string? port=3:int32? appProtocol=4:string?',
    EndpointSlice: `
      metadata=1:meta.v1.ObjectMeta endpoints=2:Endpoint[] ports=3:EndpointPort[] addressType=4:string
    `,
    ForNode: 'name=1:string',
    ForZone: 'name=1:string',
  },
};
