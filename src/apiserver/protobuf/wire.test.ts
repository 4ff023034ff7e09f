// Wire reader: number encodings Go produces (incl. sign-extended negatives), skipping of every wire type,
// and refusal of truncated or overlong input instead of reading garbage.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MalformedProtobuf, WireReader } from './wire.js';
import { bytes, concat, fixed32, fixed64, str, varint } from './wire-writer.js';

function reader(...parts: Uint8Array[]): WireReader {
  return new WireReader(concat(...parts));
}

void test('varints decode as int32, int64 and bool the way Go wrote them', () => {
  const r = reader(varint(1, 300), varint(2, -1), varint(3, -600), varint(4, 2 ** 40 + 5), varint(5, true));
  assert.deepEqual(r.tag(), { fieldNo: 1, wireType: 0 });
  assert.equal(r.int32(), 300);
  r.tag();
  assert.equal(r.int32(), -1, 'negative int32 arrives sign-extended to 10 bytes');
  r.tag();
  assert.equal(r.int64(), -600);
  r.tag();
  assert.equal(r.int64(), 2 ** 40 + 5);
  r.tag();
  assert.equal(r.bool(), true);
  assert.equal(r.done, true);
});

void test('large field numbers and strings round-trip', () => {
  const r = reader(str(536870911, 'héllo'));
  assert.deepEqual(r.tag(), { fieldNo: 536870911, wireType: 2 });
  assert.equal(r.string(), 'héllo');
});

void test('skip() passes over every wire type, including obsolete groups', () => {
  const group = Uint8Array.from([(7 << 3) | 3, (1 << 3) | 0, 5, (7 << 3) | 4]);
  const r = reader(
    varint(1, 99999),
    fixed64(2, 1n),
    bytes(3, Uint8Array.of(1, 2, 3)),
    fixed32(4, 7),
    group,
    str(9, 'x'),
  );
  for (let i = 0; i < 5; i++) {
    const t = r.tag();
    r.skip(t.wireType, t.fieldNo);
  }
  assert.deepEqual(r.tag(), { fieldNo: 9, wireType: 2 });
  assert.equal(r.string(), 'x');
});

void test('fixed-width values read little-endian', () => {
  const r = reader(fixed32(1, 0xdeadbeef), fixed64(2, 0x0102030405060708n));
  r.tag();
  assert.equal(r.fixed32(), 0xdeadbeef);
  r.tag();
  assert.equal(r.fixed64(), 0x0102030405060708n);
});

void test('malformed input throws MalformedProtobuf', () => {
  const cases: [string, Uint8Array, (r: WireReader) => void][] = [
    ['truncated varint', Uint8Array.of(0x08, 0x80), (r) => (r.tag(), r.int64())],
    [
      '11-byte varint',
      Uint8Array.of(0x08, ...new Array<number>(10).fill(0xff), 0x01),
      (r) => (r.tag(), r.int64()),
    ],
    ['length past the end', Uint8Array.of(0x0a, 0x05, 0x61), (r) => (r.tag(), r.bytes())],
    ['field number 0', Uint8Array.of(0x00, 0x01), (r) => r.tag()],
    ['wire type 7', Uint8Array.of(0x0f), (r) => r.skip(r.tag().wireType)],
    ['unterminated group', Uint8Array.of(0x0b, 0x08, 0x01), (r) => r.skip(r.tag().wireType, 1)],
    ['truncated fixed64', Uint8Array.of(0x09, 1, 2, 3), (r) => r.skip(r.tag().wireType)],
  ];
  for (const [name, buf, read] of cases) {
    assert.throws(() => read(new WireReader(buf)), MalformedProtobuf, name);
  }
});

void test('a reader bounded to a sub-range stops at its end', () => {
  const buf = concat(str(1, 'a'), str(2, 'b'));
  const r = new WireReader(buf, 0, 3);
  r.tag();
  assert.equal(r.string(), 'a');
  assert.equal(r.done, true);
});
