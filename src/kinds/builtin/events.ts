// events.k8s.io/v1 Event of a simulated cluster. Real clusters store it with core/v1 Events (one object,
// two shapes); here it is its own collection, printed by kube's event printer (printers.ts).
import type { KubeObject } from '../../store/types.js';
import { protoSchema } from '../proto-schema.js';
import type { KindDefinition } from '../types.js';
import { at, str } from './kube-helpers.js';

function eventFields(): Record<string, (o: KubeObject) => string> {
  const fields: Record<string, (o: KubeObject) => string> = {};
  for (const f of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'])
    fields[`regarding.${f}`] = (o) => str(at(o, 'regarding', f));
  for (const f of ['reason', 'reportingController', 'type']) fields[f] = (o) => str(o[f]);
  return fields;
}

export const EventsV1Event: KindDefinition = {
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  singular: 'event',
  namespaced: true,
  shortNames: ['ev'],
  schema: protoSchema('events.v1.Event'),
  selectableFields: eventFields(),
};

export const eventsKinds: readonly KindDefinition[] = [EventsV1Event];
