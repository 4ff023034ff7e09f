// Protobuf field table for k8s.io/api events/v1 v0.35.2: numbers and types from generated.proto,
// pointer (`?`) and inline (`...`) marks and JSON names from types.go. Notation: ../descriptors.ts.

import type { PackageTable } from '../descriptors.js';

export const eventsV1: PackageTable = {
  pkg: 'events.v1',
  kinds: ['Event'],
  messages: {
    Event: `
      metadata=1:meta.v1.ObjectMeta eventTime=2:meta.v1.MicroTime series=3:EventSeries?
      reportingController=4:string reportingInstance=5:string action=6:string reason=7:string
      regarding=8:core.v1.ObjectReference related=9:core.v1.ObjectReference? note=10:string type=11:string
      deprecatedSource=12:core.v1.EventSource deprecatedFirstTimestamp=13:meta.v1.Time
      deprecatedLastTimestamp=14:meta.v1.Time deprecatedCount=15:int32
    `,
    EventSeries: 'count=1:int32 lastObservedTime=2:meta.v1.MicroTime',
  },
};
