// The idle-cost budget: 200 idle 3-node clusters measured in a child process with --expose-gc; prints
// bytes per cluster and checks the 300 KiB budget and the start time.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import type { IdleCost } from './idle-cost.js';

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

describe('idle cost of 200 clusters', () => {
  let cost: IdleCost;
  before(() => {
    const script = fileURLToPath(new URL('./idle-cost.js', import.meta.url));
    const out = execFileSync(process.execPath, ['--expose-gc', script, '200'], { encoding: 'utf8' });
    cost = JSON.parse(out.trim().split('\n').pop()!) as IdleCost;
    console.log(
      `idle cost (${cost.clusters} clusters, 3 nodes each): store ${kib(cost.storeBytesPerCluster)} + ` +
        `controllers ${kib(cost.controllerBytesPerCluster)} = ${kib(cost.totalBytesPerCluster)} per cluster; ` +
        `after 1 h of heartbeats ${kib(cost.steadyBytesPerCluster)} per cluster; ` +
        `controllers started and settled in ${cost.startMs} ms (${cost.syncsPerCluster} syncs per cluster)`,
    );
  });

  test('a started, settled cluster stays within 300 KiB and starts fast', () => {
    assert.ok(cost.totalBytesPerCluster < 300 * 1024, `${cost.totalBytesPerCluster} bytes per cluster`);
    // 1,000 clusters must start within 30 s: 200 get a fifth of that.
    assert.ok(cost.startMs < 6000, `${cost.startMs} ms`);
  });

  test('after an hour of heartbeats too', () => {
    assert.ok(cost.steadyBytesPerCluster < 300 * 1024, `${kib(cost.steadyBytesPerCluster)} per cluster`);
  });
});
