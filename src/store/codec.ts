// The default ValueCodec: plain JSON. Other codecs (encryption of Secrets) wrap or replace it; every
// value at rest, in the object table and in the change log, goes through the configured codec.
import type { KubeObject, ResourceName, ValueCodec } from './types.js';

export const jsonCodec: ValueCodec = {
  encode(_resource: ResourceName, obj: KubeObject): string {
    return JSON.stringify(obj);
  },
  decode(_resource: ResourceName, stored: string): KubeObject {
    return JSON.parse(stored) as KubeObject;
  },
  storesPlainJson: () => true,
};
