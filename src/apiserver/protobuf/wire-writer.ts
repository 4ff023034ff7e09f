// Minimal protobuf writer for building bodies by hand (tests and the fixture tooling): fields are byte arrays
// concatenated in order, so a message is `msg(no, str(1, 'a'), varint(2, 3))` without any schema.

import { PROTOBUF_MAGIC } from './envelope.js';

export type Part = Uint8Array;

function varintBytes(value: number | bigint): number[] {
  // negative numbers are written as 64-bit two's complement (10 bytes), as Go does for int32/int64
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return out;
}

function tag(fieldNo: number, wireType: number): number[] {
  return varintBytes(fieldNo * 8 + wireType);
}

export function concat(...parts: Part[]): Uint8Array {
  return Uint8Array.from(Buffer.concat(parts));
}

export function varint(fieldNo: number, value: number | bigint | boolean): Part {
  const v = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  return Uint8Array.from([...tag(fieldNo, 0), ...varintBytes(v)]);
}

export function bytes(fieldNo: number, payload: Uint8Array): Part {
  return Uint8Array.from([...tag(fieldNo, 2), ...varintBytes(payload.length), ...payload]);
}

export function str(fieldNo: number, value: string): Part {
  return bytes(fieldNo, Buffer.from(value, 'utf8'));
}

export function msg(fieldNo: number, ...fields: Part[]): Part {
  return bytes(fieldNo, concat(...fields));
}

/** One map entry `{1 key, 2 value}`; `value` is the already-encoded field 2 (or nothing). */
export function mapEntry(fieldNo: number, key: string, ...value: Part[]): Part {
  return msg(fieldNo, str(1, key), ...value);
}

export function fixed32(fieldNo: number, value: number): Part {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value >>> 0);
  return Uint8Array.from([...tag(fieldNo, 5), ...b]);
}

export function fixed64(fieldNo: number, value: bigint): Part {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt.asUintN(64, value));
  return Uint8Array.from([...tag(fieldNo, 1), ...b]);
}

/** A complete request body: `k8s\0` + runtime.Unknown{typeMeta, raw, contentEncoding, contentType}. */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array, contentType = ''): Buffer {
  return Buffer.concat([
    PROTOBUF_MAGIC,
    msg(1, str(1, apiVersion), str(2, kind)),
    bytes(2, raw),
    str(3, ''),
    str(4, contentType),
  ]);
}
