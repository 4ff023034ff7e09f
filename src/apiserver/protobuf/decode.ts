// Schema-driven protobuf → JSON decoding of one Kubernetes message, normalised to what a JSON client sends:
// Go writes every non-pointer field, so plain zero values ("", 0, false, empty Time/list/map/message) are dropped.

import type { FieldDesc, MessageDesc, SchemaRegistry, SpecialType, ValueType } from './descriptors.js';
import { MalformedProtobuf, WIRE_LEN, WIRE_VARINT, WireReader } from './wire.js';

export type JsonObject = Record<string, unknown>;

/** Marks a special value that means "not set" (an empty Time, an empty FieldsV1). */
const UNSET: unique symbol = Symbol('unset');
type Decoded = unknown;

// Built-in schemas nest far less deep; the bound only stops hostile input from exhausting the stack.
const MAX_DEPTH = 64;

const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });

export function decodeMessage(
  registry: SchemaRegistry,
  messageName: string,
  bytes: Uint8Array,
  depth = 0,
): JsonObject {
  const desc = registry.message(messageName);
  if (!desc) throw new Error(`protobuf schema has no message ${messageName}`);
  return decodeWith(registry, desc, bytes, depth);
}

function decodeWith(
  registry: SchemaRegistry,
  desc: MessageDesc,
  bytes: Uint8Array,
  depth: number,
): JsonObject {
  if (depth > MAX_DEPTH) throw new MalformedProtobuf('message nested too deeply');
  const r = new WireReader(bytes);
  const singles = new Map<number, Decoded>();
  const lists = new Map<number, Decoded[]>();
  const maps = new Map<number, JsonObject>();
  while (!r.done) {
    const { fieldNo, wireType } = r.tag();
    const f = desc.fields.get(fieldNo);
    if (!f) {
      r.skip(wireType, fieldNo);
      continue;
    }
    if (f.shape === 'map') {
      expectWire(desc, f, wireType, WIRE_LEN);
      const m = maps.get(fieldNo) ?? {};
      maps.set(fieldNo, m);
      const [key, value] = readMapEntry(registry, desc, f, r.bytes(), depth);
      setOwn(m, key, value);
    } else if (f.shape === 'repeated') {
      const list = lists.get(fieldNo) ?? [];
      lists.set(fieldNo, list);
      if (wireType === WIRE_LEN && isVarintType(f.value)) {
        // packed encoding of a repeated number/bool
        const packed = new WireReader(r.bytes());
        while (!packed.done) list.push(readVarintScalar(packed, f.value));
      } else {
        list.push(elementValue(readValue(registry, desc, f, r, wireType, depth)));
      }
    } else {
      singles.set(fieldNo, readValue(registry, desc, f, r, wireType, depth));
    }
  }

  const out: JsonObject = {};
  for (const f of sortedFields(desc)) {
    if (f.shape === 'map') {
      const m = maps.get(f.fieldNo);
      if (m && Object.keys(m).length > 0) out[f.json] = m;
    } else if (f.shape === 'repeated') {
      const list = lists.get(f.fieldNo);
      if (list && list.length > 0) out[f.json] = list;
    } else if (singles.has(f.fieldNo)) {
      const v = singles.get(f.fieldNo);
      if (v === UNSET) continue;
      if (f.inline) Object.assign(out, v);
      else if (f.pointer || !isZero(v)) out[f.json] = v;
    }
  }
  return out;
}

const sortedCache = new WeakMap<MessageDesc, FieldDesc[]>();
function sortedFields(desc: MessageDesc): FieldDesc[] {
  let s = sortedCache.get(desc);
  if (!s) {
    s = [...desc.fields.values()].sort((a, b) => a.fieldNo - b.fieldNo);
    sortedCache.set(desc, s);
  }
  return s;
}

/** Sets a key as an own property, so that a map key such as `__proto__` is data, not a prototype change. */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The zero values Go writes for non-pointer fields, which its JSON encoding would omit. */
function isZero(v: Decoded): boolean {
  if (v === '' || v === 0 || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === 'object' && v !== null) return Object.keys(v).length === 0;
  return false;
}

function elementValue(v: Decoded): unknown {
  // an unset Time inside a list/map still occupies its slot; Go's JSON writes it as null
  return v === UNSET ? null : v;
}

function isVarintType(t: ValueType): boolean {
  return t.kind === 'scalar' && (t.scalar === 'bool' || t.scalar === 'int32' || t.scalar === 'int64');
}

function expectWire(desc: MessageDesc, f: FieldDesc, got: number, want: number): void {
  if (got !== want) {
    throw new MalformedProtobuf(`${desc.name} field ${f.fieldNo}: wire type ${got}, expected ${want}`);
  }
}

function readVarintScalar(r: WireReader, t: ValueType): unknown {
  if (t.kind !== 'scalar') throw new Error('not a varint scalar');
  switch (t.scalar) {
    case 'bool':
      return r.bool();
    case 'int32':
      return r.int32();
    default:
      return r.int64();
  }
}

function readValue(
  registry: SchemaRegistry,
  desc: MessageDesc,
  f: FieldDesc,
  r: WireReader,
  wireType: number,
  depth: number,
): Decoded {
  const t = f.value;
  if (isVarintType(t)) {
    expectWire(desc, f, wireType, WIRE_VARINT);
    return readVarintScalar(r, t);
  }
  expectWire(desc, f, wireType, WIRE_LEN);
  const payload = r.bytes();
  return decodeLenValue(registry, t, payload, depth);
}

function decodeLenValue(registry: SchemaRegistry, t: ValueType, payload: Uint8Array, depth: number): Decoded {
  switch (t.kind) {
    case 'scalar':
      // only string and bytes are length-delimited scalars
      return t.scalar === 'bytes' ? Buffer.from(payload).toString('base64') : utf8.decode(payload);
    case 'special':
      return decodeSpecial(t.special, payload);
    case 'message':
      return decodeMessage(registry, t.name, payload, depth + 1);
  }
}

function readMapEntry(
  registry: SchemaRegistry,
  desc: MessageDesc,
  f: FieldDesc,
  entry: Uint8Array,
  depth: number,
): [string, unknown] {
  const r = new WireReader(entry);
  let key = '';
  let value: Decoded = undefined;
  while (!r.done) {
    const { fieldNo, wireType } = r.tag();
    if (fieldNo === 1) {
      expectWire(desc, f, wireType, WIRE_LEN);
      key = r.string();
    } else if (fieldNo === 2) {
      value = readValue(registry, desc, f, r, wireType, depth);
    } else {
      r.skip(wireType, fieldNo);
    }
  }
  // an absent value is the type's zero value, as Go decodes it (`--from-literal=k=` gives data.k: "")
  if (value === undefined) value = zeroValue(registry, f.value, depth);
  return [key, elementValue(value)];
}

function zeroValue(registry: SchemaRegistry, t: ValueType, depth: number): Decoded {
  if (t.kind === 'scalar') {
    if (t.scalar === 'bool') return false;
    if (t.scalar === 'int32' || t.scalar === 'int64') return 0;
  }
  return decodeLenValue(registry, t, new Uint8Array(0), depth);
}

function decodeSpecial(special: SpecialType, payload: Uint8Array): Decoded {
  const r = new WireReader(payload);
  switch (special) {
    case 'time':
    case 'microTime': {
      let seconds = 0;
      let nanos = 0;
      while (!r.done) {
        const { fieldNo, wireType } = r.tag();
        if (fieldNo === 1 && wireType === WIRE_VARINT) seconds = r.int64();
        else if (fieldNo === 2 && wireType === WIRE_VARINT) nanos = r.int32();
        else r.skip(wireType, fieldNo);
      }
      // Go writes a zero Time as an empty message; it means "unset", never 1970-01-01
      if (seconds === 0 && nanos === 0) return UNSET;
      return formatTime(seconds, nanos, special === 'microTime');
    }
    case 'intOrString': {
      let type = 0;
      let intVal = 0;
      let strVal = '';
      while (!r.done) {
        const { fieldNo, wireType } = r.tag();
        if (fieldNo === 1 && wireType === WIRE_VARINT) type = r.int64();
        else if (fieldNo === 2 && wireType === WIRE_VARINT) intVal = r.int32();
        else if (fieldNo === 3 && wireType === WIRE_LEN) strVal = r.string();
        else r.skip(wireType, fieldNo);
      }
      return type === 1 ? strVal : intVal;
    }
    case 'quantity':
      return singleString(r);
    case 'fieldsV1':
    case 'rawExtension': {
      let raw: Uint8Array | undefined;
      while (!r.done) {
        const { fieldNo, wireType } = r.tag();
        if (fieldNo === 1 && wireType === WIRE_LEN) raw = r.bytes();
        else r.skip(wireType, fieldNo);
      }
      if (!raw || raw.length === 0) return UNSET;
      try {
        return JSON.parse(utf8.decode(raw)) as unknown;
      } catch {
        throw new MalformedProtobuf(
          `${special === 'fieldsV1' ? 'FieldsV1' : 'RawExtension'} does not hold JSON`,
        );
      }
    }
    case 'stringList': {
      const items: string[] = [];
      while (!r.done) {
        const { fieldNo, wireType } = r.tag();
        if (fieldNo === 1 && wireType === WIRE_LEN) items.push(r.string());
        else r.skip(wireType, fieldNo);
      }
      return items;
    }
  }
}

function singleString(r: WireReader): string {
  let s = '';
  while (!r.done) {
    const { fieldNo, wireType } = r.tag();
    if (fieldNo === 1 && wireType === WIRE_LEN) s = r.string();
    else r.skip(wireType, fieldNo);
  }
  return s;
}

/** RFC 3339 in UTC as Go's metav1.Time (whole seconds) and MicroTime (6 fraction digits) marshal it. */
export function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const d = new Date(seconds * 1000);
  const year = d.getUTCFullYear();
  // Go refuses to marshal such a time to JSON, so no JSON client could have sent it either
  if (Number.isNaN(year) || year < 0 || year > 9999)
    throw new MalformedProtobuf(`time ${seconds}s is out of range`);
  const base = d.toISOString().slice(0, 19); // YYYY-MM-DDTHH:MM:SS
  if (!micro) return `${base}Z`;
  const micros = Math.floor(Math.max(0, Math.min(nanos, 999_999_999)) / 1000);
  return `${base}.${String(micros).padStart(6, '0')}Z`;
}
