// Protobuf wire-format reader: tags, varints, fixed32/64 and length-delimited slices over a byte buffer,
// with skipping of unknown fields. Every malformed input surfaces as a `MalformedProtobuf` error.

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

/** Bytes that are not valid protobuf (truncated, overlong varint, bad wire type…). */
export class MalformedProtobuf extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedProtobuf';
  }
}

export interface Tag {
  fieldNo: number;
  wireType: number;
}

const TWO_32 = 2 ** 32;
// Groups are obsolete and never written by Kubernetes; the bound only keeps hostile input from recursing.
const MAX_GROUP_DEPTH = 32;

export class WireReader {
  private pos: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get done(): boolean {
    return this.pos >= this.end;
  }

  get offset(): number {
    return this.pos;
  }

  tag(): Tag {
    const at = this.pos;
    const { lo, hi } = this.rawVarint();
    if (hi !== 0 || lo > 0x1fffffff * 8 + 7)
      throw new MalformedProtobuf(`field tag too large at offset ${at}`);
    const fieldNo = Math.floor(lo / 8);
    const wireType = lo & 7;
    if (fieldNo === 0) throw new MalformedProtobuf(`illegal field number 0 at offset ${at}`);
    return { fieldNo, wireType };
  }

  /** A varint as an unsigned 64-bit value split into two unsigned 32-bit halves. */
  private rawVarint(): { lo: number; hi: number } {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new MalformedProtobuf('truncated varint');
      const b = this.buf[this.pos++]!;
      const bits = b & 0x7f;
      if (i < 4) lo += bits * 2 ** (7 * i);
      else if (i === 4) {
        lo += (bits & 0x0f) * 2 ** 28;
        hi += bits >> 4;
      } else {
        if (i === 9 && bits > 1) throw new MalformedProtobuf('varint overflows 64 bits');
        hi += bits * 2 ** (7 * i - 32);
      }
      if ((b & 0x80) === 0) return { lo: lo >>> 0, hi: hi >>> 0 };
    }
    throw new MalformedProtobuf('varint longer than 10 bytes');
  }

  /** proto `int32`: the low 32 bits, signed (negative values arrive sign-extended to 10 bytes). */
  int32(): number {
    return this.rawVarint().lo | 0;
  }

  /** proto `int64` as a JS number (exact up to 2^53, which covers every Kubernetes int64 in practice). */
  int64(): number {
    const { lo, hi } = this.rawVarint();
    return hi >= 0x80000000 ? (hi - TWO_32) * TWO_32 + lo : hi * TWO_32 + lo;
  }

  uint64(): number {
    const { lo, hi } = this.rawVarint();
    return hi * TWO_32 + lo;
  }

  bool(): boolean {
    const { lo, hi } = this.rawVarint();
    return lo !== 0 || hi !== 0;
  }

  fixed32(): number {
    this.need(4);
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 4).getUint32(0, true);
    this.pos += 4;
    return v;
  }

  fixed64(): bigint {
    this.need(8);
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getBigUint64(0, true);
    this.pos += 8;
    return v;
  }

  /** A length-delimited payload as a view (no copy) into the underlying buffer. */
  bytes(): Uint8Array {
    const len = this.uint64();
    if (len > this.end - this.pos)
      throw new MalformedProtobuf(`length ${len} runs past the end of the message`);
    const view = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return view;
  }

  string(): string {
    return utf8.decode(this.bytes());
  }

  /** Skips the value of a field we do not know, whatever its wire type. */
  skip(wireType: number, fieldNo = 0, depth = 0): void {
    switch (wireType) {
      case WIRE_VARINT:
        this.rawVarint();
        return;
      case WIRE_FIXED64:
        this.need(8);
        this.pos += 8;
        return;
      case WIRE_LEN:
        this.bytes();
        return;
      case WIRE_FIXED32:
        this.need(4);
        this.pos += 4;
        return;
      case WIRE_START_GROUP: {
        if (depth >= MAX_GROUP_DEPTH) throw new MalformedProtobuf('groups nested too deeply');
        for (;;) {
          if (this.done) throw new MalformedProtobuf('unterminated group');
          const t = this.tag();
          if (t.wireType === WIRE_END_GROUP) {
            if (t.fieldNo !== fieldNo) throw new MalformedProtobuf('mismatched end of group');
            return;
          }
          this.skip(t.wireType, t.fieldNo, depth + 1);
        }
      }
      default:
        throw new MalformedProtobuf(`unexpected wire type ${wireType}`);
    }
  }

  private need(n: number): void {
    if (this.end - this.pos < n) throw new MalformedProtobuf('truncated fixed-width value');
  }
}

// Not fatal: Go's generated decoder takes string bytes as they are and its JSON encoder then replaces
// invalid UTF-8 with U+FFFD, which is what this decoder does too.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true }); // ignoreBOM keeps a leading BOM, as Go does
