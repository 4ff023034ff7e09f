// Chart archives read as helm 4.1.4 reads them; the error texts are what `helm template` printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ChartArchiveError, readChartArchive } from './archive.js';

interface Entry {
  name: string;
  data?: string;
  type?: string;
  pax?: Record<string, string>;
}

function header(name: string, size: number, type: string): Buffer {
  const b = Buffer.alloc(512);
  b.write(name.slice(0, 100), 0, 'utf8');
  b.write('0000644\0', 100);
  b.write('0000000\0', 108);
  b.write('0000000\0', 116);
  b.write(size.toString(8).padStart(11, '0') + '\0', 124);
  b.write('00000000000\0', 136);
  b.write(type, 156);
  b.write('ustar\x0000', 257, 'latin1');
  b.fill(0x20, 148, 156);
  let sum = 0;
  for (const c of b) sum += c;
  b.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return b;
}

function block(data: Buffer): Buffer {
  return Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}

/** A tiny tar writer: regular files, other entry types, GNU long names and PAX path records. */
function tgz(entries: Entry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = Buffer.from(e.data ?? '');
    if (e.pax) {
      const recs = Object.entries(e.pax)
        .map(([k, v]) => {
          const body = ` ${k}=${v}\n`;
          let len = body.length + 1;
          while (`${len}${body}`.length !== len) len++;
          return `${len}${body}`;
        })
        .join('');
      parts.push(header('PaxHeader', recs.length, 'x'), block(Buffer.from(recs)));
    } else if (Buffer.byteLength(e.name) > 100) {
      parts.push(
        header('././@LongLink', Buffer.byteLength(e.name) + 1, 'L'),
        block(Buffer.from(e.name + '\0')),
      );
    }
    const type = e.type ?? '0';
    parts.push(header(e.name, type === '0' ? data.length : 0, type));
    if (type === '0') parts.push(block(data));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts));
}

const CHART = { name: 'c/Chart.yaml', data: 'apiVersion: v2\nname: c\nversion: 0.1.0\n' };

test('a chart packaged by helm reads back with the top directory stripped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'archive-'));
  try {
    mkdirSync(join(dir, 'c/templates'), { recursive: true });
    writeFileSync(join(dir, 'c/Chart.yaml'), CHART.data);
    writeFileSync(join(dir, 'c/templates/x.yaml'), 'a: 1\n');
    writeFileSync(join(dir, 'c/.helmignore'), 'ignored.txt\n');
    writeFileSync(join(dir, 'c/ignored.txt'), 'x');
    execFileSync(join(process.cwd(), '.tools/v35/helm'), ['package', join(dir, 'c'), '-d', dir]);
    const files = readChartArchive(readFileSync(join(dir, 'c-0.1.0.tgz')), 'c-0.1.0.tgz');
    assert.deepEqual([...files.keys()].sort(), ['.helmignore', 'Chart.yaml', 'templates/x.yaml']);
    assert.equal(files.get('templates/x.yaml')?.toString(), 'a: 1\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('long names, PAX paths, BOMs; links and FIFOs become empty files, directories are skipped', () => {
  const long = 'L'.repeat(120) + '/long.txt';
  const files = readChartArchive(
    tgz([
      CHART,
      { name: `c/${long}`, data: 'long' },
      { name: 'c/short', data: 'pax', pax: { path: 'c/pax/' + 'p'.repeat(110) } },
      { name: 'c/./x/../norm.txt', data: 'n' },
      { name: 'c/bom.txt', data: '\uFEFFbom' },
      { name: 'c/link', type: '2' },
      { name: 'c/fifo', type: '6' },
      { name: 'c/dir/', type: '5' },
    ]),
  );
  assert.deepEqual(
    [...files.keys()],
    ['Chart.yaml', long, 'pax/' + 'p'.repeat(110), 'norm.txt', 'bom.txt', 'link', 'fifo'],
  );
  assert.equal(files.get('bom.txt')?.toString(), 'bom');
  assert.equal(files.get('link')?.length, 0);
});

test('unsafe paths: helm template says only "unable to load chart archive"', () => {
  const cases: [Entry, string][] = [
    [{ name: 'c/../evil', data: 'e' }, 'chart illegally references parent directory'],
    [{ name: 'c//etc/x', data: 'e' }, 'chart illegally contains absolute paths'],
    [
      { name: 'Chart.yaml', data: 'e' },
      'chart illegally contains content outside the base directory: "Chart.yaml"',
    ],
  ];
  for (const [entry, detail] of cases) {
    const data = tgz([CHART, entry]);
    assert.throws(
      () => readChartArchive(data, '/x/c.tgz'),
      (e: unknown) => {
        assert.ok(e instanceof ChartArchiveError);
        assert.equal(e.message, 'unable to load chart archive');
        assert.equal((e.cause as Error).message, detail);
        return true;
      },
    );
    assert.throws(
      () => readChartArchive(data),
      new ChartArchiveError(`unable to load chart archive: ${detail}`),
    );
  }
});

test('not a gzip file: helm sniffs the content type (of a zero-padded 512-byte buffer)', () => {
  assert.throws(
    () => readChartArchive(Buffer.from('hi\n'), '/tmp/notgz.tgz'),
    new ChartArchiveError(
      "file '/tmp/notgz.tgz' does not appear to be a gzipped archive; got 'application/octet-stream'",
    ),
  );
  assert.throws(
    () => readChartArchive(Buffer.from('a: 1\n'), '/tmp/v.yaml'),
    new ChartArchiveError("file '/tmp/v.yaml' seems to be a YAML file, but expected a gzipped archive"),
  );
  assert.throws(
    () => readChartArchive(Buffer.from('\x1f\x8b\x08garbage', 'latin1'), 'b.tgz'),
    /^Error: unable to load chart archive$/,
  );
});

test('trailing bytes after the tar end are not read; an archive without files or Chart.yaml fails', () => {
  const data = Buffer.concat([tgz([CHART]), Buffer.from('JUNKJUNK')]);
  assert.deepEqual([...readChartArchive(data, 'j.tgz').keys()], ['Chart.yaml']);
  assert.throws(
    () => readChartArchive(tgz([]), 'e.tgz'),
    new ChartArchiveError('unable to load chart archive'),
  );
  assert.throws(
    () => readChartArchive(tgz([{ name: 'c/a.txt', data: 'a' }]), 'e.tgz'),
    new ChartArchiveError('unable to detect chart version, no Chart.yaml found'),
  );
});
