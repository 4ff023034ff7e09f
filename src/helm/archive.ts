// Reading a packaged chart (.tgz) the way helm 4.1.4's loader does (pkg/chart/loader/archive): gunzip,
// tar, path checks and size limits, giving the chart's files keyed by their path inside the chart.
import { constants, inflateRawSync } from 'node:zlib';
import { posix } from 'node:path';

/** helm's archive.MaxDecompressedChartSize: the sum of all file sizes in a chart archive. */
export const MAX_DECOMPRESSED_CHART_SIZE = 100 * 1024 * 1024;
/** helm's archive.MaxDecompressedFileSize: the largest single file (archive or directory). */
export const MAX_DECOMPRESSED_FILE_SIZE = 5 * 1024 * 1024;

/**
 * A chart archive helm would refuse. `message` is what `helm template` prints after "Error: "; helm
 * hides most loader errors behind "unable to load chart archive", so `cause` keeps the specific one.
 */
export class ChartArchiveError extends Error {}

/** Errors with the wording of Go's gzip / archive/tar readers and helm's LoadArchiveFiles. */
class ArchiveFormatError extends Error {
  constructor(
    message: string,
    /** gzip.ErrHeader, which helm reports apart from the rest. */
    readonly gzipHeader = false,
  ) {
    super(message);
  }
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * The files of a chart archive keyed by chart-relative path ("Chart.yaml", "templates/x.yaml").
 * With `name` (the path the user gave, as helm prints it) this is helm's LoadFile: the content sniffing
 * of EnsureArchive first, then its terse errors; without it, LoadArchive's (the reader/stream API).
 * No .helmignore: helm applies it only when loading a directory.
 */
export function readChartArchive(data: Buffer, name?: string): Map<string, Buffer> {
  if (name !== undefined) ensureArchive(name, data);
  let files: Map<string, Buffer>;
  try {
    files = loadArchiveFiles(data);
  } catch (e) {
    if (!(e instanceof ArchiveFormatError)) throw e;
    if (e.gzipHeader) {
      const what = name === undefined ? 'stream' : `file '${name}'`;
      throw new ChartArchiveError(
        `${what} does not appear to be a valid chart file (details: ${e.message})`,
        {
          cause: e,
        },
      );
    }
    const message =
      name === undefined ? `unable to load chart archive: ${e.message}` : 'unable to load chart archive';
    throw new ChartArchiveError(message, { cause: e });
  }
  if (!files.has('Chart.yaml'))
    throw new ChartArchiveError('unable to detect chart version, no Chart.yaml found');
  return files;
}

/** helm's EnsureArchive: a friendlier error than a gzip failure when the file is not a gzip at all. */
function ensureArchive(name: string, data: Buffer): void {
  // helm sniffs a zero-filled 512-byte buffer, so short text files come out as binary.
  const head = Buffer.alloc(512);
  data.copy(head, 0, 0, 512);
  const contentType = detectContentType(head);
  if (contentType === 'application/x-gzip' || head.subarray(0, 3).equals(Buffer.from([0x1f, 0x8b, 0x08])))
    return;
  if (name.endsWith('.yml') || name.endsWith('.yaml')) {
    throw new ChartArchiveError(`file '${name}' seems to be a YAML file, but expected a gzipped archive`);
  }
  throw new ChartArchiveError(`file '${name}' does not appear to be a gzipped archive; got '${contentType}'`);
}

/**
 * helm's LoadArchiveFiles: every non-directory entry (symlinks, FIFOs and other special entries
 * included, as empty files, as helm does) with the top directory stripped and the path checked.
 * Throws ArchiveFormatError with helm's (or Go's reader's) wording.
 */
function loadArchiveFiles(data: Buffer): Map<string, Buffer> {
  const tar = new TarReader(gunzip(data));
  const files = new Map<string, Buffer>();
  let remaining = MAX_DECOMPRESSED_CHART_SIZE;
  for (let hd = tar.next(); hd !== undefined; hd = tar.next()) {
    if (hd.isDir) continue;
    if (hd.typeflag === 'g' || hd.typeflag === 'x') continue;
    const delimiter = hd.name.includes('\\') ? '\\' : '/';
    const parts = hd.name.split(delimiter);
    let n = parts.slice(1).join(delimiter).split(delimiter).join('/');
    if (n.startsWith('/')) throw new ArchiveFormatError('chart illegally contains absolute paths');
    n = goClean(n);
    if (n === '.') {
      throw new ArchiveFormatError(
        `chart illegally contains content outside the base directory: ${JSON.stringify(hd.name)}`,
      );
    }
    if (n.startsWith('..')) throw new ArchiveFormatError('chart illegally references parent directory');
    if (/^[a-zA-Z]:\//.test(n)) throw new ArchiveFormatError('chart contains illegally named files');
    if (parts[0] === 'Chart.yaml') throw new ArchiveFormatError('chart yaml not in base directory');
    if (hd.size > remaining) {
      throw new ArchiveFormatError(
        `decompressed chart is larger than the maximum size ${MAX_DECOMPRESSED_CHART_SIZE}`,
      );
    }
    if (hd.size > MAX_DECOMPRESSED_FILE_SIZE) {
      throw new ArchiveFormatError(
        `decompressed chart file ${JSON.stringify(hd.name)} is larger than the maximum file size ${MAX_DECOMPRESSED_FILE_SIZE}`,
      );
    }
    const body = tar.body(hd);
    remaining -= body.length;
    if (body.length < hd.size || remaining <= 0) {
      throw new ArchiveFormatError(
        `decompressed chart is larger than the maximum size ${MAX_DECOMPRESSED_CHART_SIZE}`,
      );
    }
    files.delete(n);
    files.set(n, body.subarray(0, 3).equals(UTF8_BOM) ? body.subarray(3) : body);
  }
  if (files.size === 0) throw new ArchiveFormatError('no files in chart archive');
  return files;
}

/** Go's path.Clean for a relative slash path. */
function goClean(p: string): string {
  const n = posix.normalize(p);
  return n.length > 1 && n.endsWith('/') ? n.slice(0, -1) : n;
}

/** The gunzipped bytes, and what Go's gzip reader would fail with if the tar reader read past them. */
interface Gunzipped {
  data: Buffer;
  error: ArchiveFormatError | undefined;
}

// Go decompresses lazily and the tar reader stops at its end marker, so trailing junk or a bad
// trailer is only an error when the tar data runs into it; hence the deferred `error`.
function gunzip(input: Buffer): Gunzipped {
  const chunks: Buffer[] = [];
  let pos = 0;
  for (let member = 0; ; member++) {
    if (member > 0 && pos >= input.length) return { data: Buffer.concat(chunks), error: undefined };
    const start = gzipHeaderEnd(input, pos);
    if (typeof start !== 'number') return { data: Buffer.concat(chunks), error: start };
    let out: Buffer;
    let consumed: number;
    try {
      const r = inflateRawSync(input.subarray(start), {
        info: true,
        finishFlush: constants.Z_SYNC_FLUSH,
      }) as unknown as {
        buffer: Buffer;
        engine: { bytesWritten: number };
      };
      out = r.buffer;
      consumed = r.engine.bytesWritten;
    } catch {
      return { data: Buffer.concat(chunks), error: new ArchiveFormatError('flate: corrupt input') };
    }
    chunks.push(out);
    pos = start + consumed + 8;
    if (pos > input.length)
      return { data: Buffer.concat(chunks), error: new ArchiveFormatError('unexpected EOF') };
  }
}

/** Where the deflate data of the gzip member at `pos` starts, or Go's error for its header. */
function gzipHeaderEnd(b: Buffer, pos: number): number | ArchiveFormatError {
  const eof = new ArchiveFormatError('unexpected EOF');
  if (b.length - pos < 10) return b.length === pos ? new ArchiveFormatError('EOF') : eof;
  if (b[pos] !== 0x1f || b[pos + 1] !== 0x8b || b[pos + 2] !== 8) {
    return new ArchiveFormatError('gzip: invalid header', true);
  }
  const flags = b[pos + 3] ?? 0;
  let p = pos + 10;
  if (flags & 4) {
    if (p + 2 > b.length) return eof;
    p += 2 + b.readUInt16LE(p);
  }
  for (const bit of [8, 16]) {
    if (flags & bit) {
      const end = b.indexOf(0, p);
      if (end < 0) return eof;
      p = end + 1;
    }
  }
  if (flags & 2) p += 2;
  return p > b.length ? eof : p;
}

interface TarHeader {
  name: string;
  typeflag: string;
  size: number;
  isDir: boolean;
  /** Bytes of content following the header (0 for header-only entry types). */
  dataSize: number;
  dataOffset: number;
}

const HEADER_ONLY_TYPES = new Set(['1', '2', '3', '4', '5', '6']);

/** Go's archive/tar Reader over USTAR, PAX ('x'/'g') and GNU ('L'/'K') archives. */
class TarReader {
  private pos = 0;

  constructor(private readonly src: Gunzipped) {}

  private fail(): never {
    throw this.src.error ?? new ArchiveFormatError('unexpected EOF');
  }

  private block(): Buffer | undefined {
    if (this.pos === this.src.data.length && this.src.error === undefined) return undefined;
    if (this.pos + 512 > this.src.data.length) this.fail();
    const b = this.src.data.subarray(this.pos, this.pos + 512);
    this.pos += 512;
    return b;
  }

  private take(n: number): Buffer {
    if (this.pos + n > this.src.data.length) this.fail();
    const b = this.src.data.subarray(this.pos, this.pos + n);
    this.pos += n + ((512 - (n % 512)) % 512);
    return b;
  }

  body(hd: TarHeader): Buffer {
    return this.src.data.subarray(hd.dataOffset, hd.dataOffset + hd.dataSize);
  }

  next(): TarHeader | undefined {
    let paxPath: string | undefined;
    let paxSize: number | undefined;
    let longName: string | undefined;
    for (;;) {
      const blk = this.block();
      if (blk === undefined) return undefined;
      if (blk.every((x) => x === 0)) {
        const second = this.block();
        if (second === undefined || second.every((x) => x === 0)) return undefined;
        throw new ArchiveFormatError('archive/tar: invalid tar header');
      }
      if (!checksumOK(blk)) throw new ArchiveFormatError('archive/tar: invalid tar header');
      const typeflag = String.fromCharCode(blk[156] ?? 0);
      const size = parseNumeric(blk.subarray(124, 136));
      const mode = parseNumeric(blk.subarray(100, 108));
      const magic = blk.subarray(257, 263).toString('latin1');
      let name = cString(blk.subarray(0, 100));
      if (magic === 'ustar\0') {
        const prefix = cString(blk.subarray(345, 500));
        if (prefix !== '') name = `${prefix}/${name}`;
      }
      if (typeflag === 'x' || typeflag === 'g') {
        const records = parsePax(this.take(size));
        if (typeflag === 'g') {
          // Go hands a global header back as an entry of its own; helm skips it.
          return { name, typeflag, size: 0, isDir: false, dataSize: 0, dataOffset: this.pos };
        }
        if (records.path !== undefined) paxPath = records.path;
        if (records.size !== undefined) {
          if (!/^\d+$/.test(records.size)) throw new ArchiveFormatError('archive/tar: invalid tar header');
          paxSize = Number(records.size);
        }
        continue;
      }
      if (typeflag === 'L' || typeflag === 'K') {
        const text = cString(this.take(size));
        if (typeflag === 'L') longName = text;
        continue;
      }
      if (typeflag === 'S') throw new ArchiveFormatError('archive/tar: sparse files are not supported');
      if (longName !== undefined) name = longName;
      if (paxPath !== undefined) name = paxPath;
      const entrySize = paxSize ?? size;
      let flag = typeflag;
      if (flag === '\0') flag = name.endsWith('/') ? '5' : '0';
      const isDir = flag === '5' || (mode & 0o170000) === 0o040000;
      const dataSize = HEADER_ONLY_TYPES.has(flag) ? 0 : entrySize;
      const dataOffset = this.pos;
      // A short body is reported after the size checks, as helm's LimitReader copy does.
      if (this.pos + dataSize > this.src.data.length) {
        this.pos = this.src.data.length;
        const partial = this.src.data.length - dataOffset;
        return { name, typeflag: flag, size: entrySize, isDir, dataSize: partial, dataOffset };
      }
      this.take(dataSize);
      return { name, typeflag: flag, size: entrySize, isDir, dataSize, dataOffset };
    }
  }
}

function cString(b: Buffer): string {
  const end = b.indexOf(0);
  return b.subarray(0, end < 0 ? b.length : end).toString('utf8');
}

/** Octal (space/NUL padded) or GNU base-256 numbers of tar header fields. */
function parseNumeric(b: Buffer): number {
  if (b.length > 0 && ((b[0] ?? 0) & 0x80) !== 0) {
    let n = 0;
    for (let i = 0; i < b.length; i++) n = n * 256 + ((i === 0 ? (b[i] ?? 0) & 0x7f : b[i]) ?? 0);
    return n;
  }
  const s = b
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .replace(/^[ \0]+/, '');
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw new ArchiveFormatError('archive/tar: invalid tar header');
  return parseInt(s, 8);
}

function checksumOK(blk: Buffer): boolean {
  const field = blk
    .subarray(148, 156)
    .toString('latin1')
    .replace(/[\0 ]+$/, '')
    .replace(/^ +/, '');
  if (!/^[0-7]+$/.test(field)) return false;
  const want = parseInt(field, 8);
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < 512; i++) {
    const c = i >= 148 && i < 156 ? 0x20 : (blk[i] ?? 0);
    unsigned += c;
    signed += c > 127 ? c - 256 : c;
  }
  return want === unsigned || want === signed;
}

/** PAX records: "<len> <key>=<value>\n", repeated. */
function parsePax(b: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let s = b;
  while (s.length > 0) {
    const sp = s.indexOf(0x20);
    const len = sp > 0 ? Number(s.subarray(0, sp).toString('latin1')) : NaN;
    if (!Number.isInteger(len) || len <= sp || len > s.length || s[len - 1] !== 0x0a) {
      throw new ArchiveFormatError('archive/tar: invalid tar header');
    }
    const rec = s.subarray(sp + 1, len - 1).toString('utf8');
    const eq = rec.indexOf('=');
    if (eq < 0) throw new ArchiveFormatError('archive/tar: invalid tar header');
    out[rec.slice(0, eq)] = rec.slice(eq + 1);
    s = s.subarray(len);
  }
  return out;
}

// net/http's DetectContentType signatures (the ones a chart path plausibly hits), in Go's order.
const EXACT_SIGNATURES: [string, string][] = [
  ['%PDF-', 'application/pdf'],
  ['%!PS-Adobe-', 'application/postscript'],
  ['\x00\x00\x01\x00', 'image/x-icon'],
  ['\x00\x00\x02\x00', 'image/x-icon'],
  ['BM', 'image/bmp'],
  ['GIF87a', 'image/gif'],
  ['GIF89a', 'image/gif'],
  ['\x89PNG\x0D\x0A\x1A\x0A', 'image/png'],
  ['\xFF\xD8\xFF', 'image/jpeg'],
  ['ID3', 'audio/mpeg'],
  ['OggS\x00', 'application/ogg'],
  ['MThd\x00\x00\x00\x06', 'audio/midi'],
  ['\x1A\x45\xDF\xA3', 'video/webm'],
  ['\x00\x01\x00\x00', 'font/ttf'],
  ['OTTO', 'font/otf'],
  ['ttcf', 'font/collection'],
  ['wOFF', 'font/woff'],
  ['wOF2', 'font/woff2'],
  ['\x1F\x8B\x08', 'application/x-gzip'],
  ['PK\x03\x04', 'application/zip'],
  ['Rar!\x1A\x07\x00', 'application/x-rar-compressed'],
  ['Rar!\x1A\x07\x01\x00', 'application/x-rar-compressed'],
  ['\x00\x61\x73\x6D', 'application/wasm'],
];
const HTML_TAGS = [
  '<!DOCTYPE HTML',
  '<HTML',
  '<HEAD',
  '<SCRIPT',
  '<IFRAME',
  '<H1',
  '<DIV',
  '<FONT',
  '<TABLE',
  '<A',
  '<STYLE',
  '<TITLE',
  '<B',
  '<BODY',
  '<BR',
  '<P',
  '<!--',
];

/** A subset of Go's http.DetectContentType, enough for the names helm puts in its error. */
export function detectContentType(data: Buffer): string {
  const b = data.subarray(0, 512);
  const s = b.toString('latin1');
  const trimmed = s.replace(/^[\t\n\f\r ]+/, '');
  for (const tag of HTML_TAGS) {
    const next = trimmed.charCodeAt(tag.length);
    if (trimmed.slice(0, tag.length).toUpperCase() === tag && (next === 0x20 || next === 0x3e)) {
      return 'text/html; charset=utf-8';
    }
  }
  if (trimmed.startsWith('<?xml')) return 'text/xml; charset=utf-8';
  if (s.startsWith('\xFE\xFF')) return 'text/plain; charset=utf-16be';
  if (s.startsWith('\xFF\xFE')) return 'text/plain; charset=utf-16le';
  if (s.startsWith('\xEF\xBB\xBF')) return 'text/plain; charset=utf-8';
  if (s.startsWith('RIFF') && s.slice(8, 14) === 'WEBPVP') return 'image/webp';
  if (s.startsWith('RIFF') && s.slice(8, 12) === 'AVI ') return 'video/avi';
  if (s.startsWith('RIFF') && s.slice(8, 12) === 'WAVE') return 'audio/wave';
  if (s.startsWith('FORM') && s.slice(8, 12) === 'AIFF') return 'audio/aiff';
  for (const [sig, type] of EXACT_SIGNATURES) if (s.startsWith(sig)) return type;
  const binary = b.some(
    (c) => c <= 0x08 || c === 0x0b || (c >= 0x0e && c <= 0x1a) || (c >= 0x1c && c <= 0x1f),
  );
  return binary ? 'application/octet-stream' : 'text/plain; charset=utf-8';
}
