// ChartCache's timing: index.yaml re-read only after its interval, the last good index kept when a
// re-read fails, and a new archive fetched only when the index points at new bytes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ChartCache } from './chart-cache.js';
import { createChart, repoIndex, type PackagedChart } from './testdata/helm-cli.js';
import { serveFiles, type Served } from './testdata/servers.js';

let chart: PackagedChart;
let repo: Served;
const files = new Map<string, Buffer | string>();

before(async () => {
  chart = await createChart('cached', '1.2.3');
  files.set('/index.yaml', await repoIndex(join(chart.dir, 'out')));
  files.set('/cached-1.2.3.tgz', chart.data);
  repo = await serveFiles(files);
});

after(() => repo.close());

test('the index is re-read after its interval only, and a failed re-read keeps the last good one', async () => {
  let now = 1_000_000;
  const cache = new ChartCache({ indexTtlMs: 60_000, now: () => now });
  const req = { repositoryURL: repo.base, chartName: 'cached', chartVersion: '1.2.3' };
  const first = await cache.get(req);
  assert.equal(first.chart.metadata.name, 'cached');
  assert.equal(first.version, '1.2.3');
  now += 30_000;
  await cache.get(req);
  assert.deepEqual(cache.stats, { indexFetches: 1, archiveFetches: 1, manifestFetches: 0, charts: 1 });
  now += 31_000;
  const again = await cache.get(req);
  assert.equal(again.digest, first.digest);
  assert.deepEqual(cache.stats, { indexFetches: 2, archiveFetches: 1, manifestFetches: 0, charts: 1 });

  const index = files.get('/index.yaml')!;
  files.delete('/index.yaml');
  now += 61_000;
  const stale = await cache.get(req);
  assert.equal(stale.digest, first.digest, 'served from the last good index');
  assert.equal(cache.stats.indexFetches, 3);
  files.set('/index.yaml', index);
});

test('a cold cache with an unreachable repository fails with the index URL', async () => {
  const cache = new ChartCache();
  await assert.rejects(
    cache.get({ repositoryURL: `${repo.base}/none`, chartName: 'cached', chartVersion: '1.2.3' }),
    (e: Error) => e.name === 'ChartFetchError' && /index .*\/none\/index\.yaml: HTTP 404/.test(e.message),
  );
  await assert.rejects(
    cache.get({
      repositoryURL: 'gitrepository://flux-system/repo/charts',
      chartName: 'x',
      chartVersion: '1',
    }),
    /Flux GitRepository, OCIRepository, Bucket\) are not supported/,
  );
});
