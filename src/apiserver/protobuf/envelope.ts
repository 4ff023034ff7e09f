// The envelope client-go wraps every protobuf body in: the magic `k8s\0`, then a runtime.Unknown
// {1 typeMeta {1 apiVersion, 2 kind}, 2 raw (the object's message), 3 contentEncoding, 4 contentType}.

import { MalformedProtobuf, WIRE_LEN, WireReader } from './wire.js';

export const PROTOBUF_MAGIC: Readonly<Uint8Array> = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** True when `buf` starts with the `k8s\0` magic. */
export function hasProtobufMagic(buf: Uint8Array): boolean {
  return buf.length >= 4 && PROTOBUF_MAGIC.every((b, i) => buf[i] === b);
}

/** Splits a protobuf body into its type and raw object bytes; throws `MalformedProtobuf` on bad bytes. */
export function readEnvelope(buf: Uint8Array): Envelope {
  if (!hasProtobufMagic(buf)) {
    // the wording of apimachinery's protobuf serializer, which clients may show verbatim
    throw new MalformedProtobuf(
      `provided data does not appear to be a protobuf message, expected prefix [${[...PROTOBUF_MAGIC].join(' ')}]`,
    );
  }
  const env: Envelope = {
    apiVersion: '',
    kind: '',
    raw: new Uint8Array(0),
    contentEncoding: '',
    contentType: '',
  };
  const r = new WireReader(buf, 4);
  while (!r.done) {
    const { fieldNo, wireType } = r.tag();
    if (wireType !== WIRE_LEN || fieldNo > 4) {
      r.skip(wireType, fieldNo);
      continue;
    }
    switch (fieldNo) {
      case 1: {
        const tm = new WireReader(r.bytes());
        while (!tm.done) {
          const t = tm.tag();
          if (t.fieldNo === 1 && t.wireType === WIRE_LEN) env.apiVersion = tm.string();
          else if (t.fieldNo === 2 && t.wireType === WIRE_LEN) env.kind = tm.string();
          else tm.skip(t.wireType, t.fieldNo);
        }
        break;
      }
      case 2:
        env.raw = r.bytes();
        break;
      case 3:
        env.contentEncoding = r.string();
        break;
      case 4:
        env.contentType = r.string();
        break;
    }
  }
  return env;
}
