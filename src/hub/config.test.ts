import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, hubConfig, isLoopback, parseHostPort } from './config.js';

test('defaults: ./fleethub-data, 127.0.0.1:8443, SQLite in the data dir, 30 days of audit', () => {
  const config = hubConfig([], {});
  assert.match(config.dataDir, /\/fleethub-data$/);
  assert.deepEqual(config.listen, { host: '127.0.0.1', port: 8443 });
  assert.equal(config.databaseUrl, `sqlite:${config.dataDir}/fleethub.db`);
  assert.equal(config.auditRetentionMs, 30 * 86_400_000);
});

test('flags win over FLEETHUB_* variables, and both forms of flags parse', () => {
  const config = hubConfig(['--listen=0.0.0.0:9443', '--database', 'postgres://u:p@db/fleet'], {
    FLEETHUB_LISTEN: '127.0.0.1:1',
    FLEETHUB_LOG_LEVEL: 'debug',
  });
  assert.deepEqual(config.listen, { host: '0.0.0.0', port: 9443 });
  assert.equal(config.databaseUrl, 'postgres://u:p@db/fleet');
  assert.equal(config.logLevel, 'debug');
});

test('mistakes are clear configuration errors', () => {
  assert.throws(
    () => hubConfig(['--bogus', 'x'], {}),
    (e) => e instanceof ConfigError && /unknown flag --bogus/.test(e.message),
  );
  assert.throws(() => hubConfig(['--listen', 'nope'], {}), /expected HOST:PORT/);
  assert.throws(() => hubConfig(['--database', 'mysql://x'], {}), /expected sqlite:/);
  assert.throws(
    () => hubConfig(['--audit-retention', 'forever'], {}),
    /--audit-retention: expected a duration/,
  );
  assert.throws(() => hubConfig(['--insecure-http-listen', '10.0.0.1:80'], {}), /must be a loopback address/);
  assert.equal(hubConfig(['--insecure-http-listen', '[::1]:8080'], {}).insecureHttpListen?.host, '::1');
});

test('loopback and host:port parsing', () => {
  assert.ok(isLoopback('127.0.0.5') && isLoopback('::1') && isLoopback('localhost'));
  assert.ok(!isLoopback('0.0.0.0') && !isLoopback('192.168.1.1'));
  assert.deepEqual(parseHostPort('[::1]:6443', '--listen'), { host: '::1', port: 6443 });
});

test('--demo-fleet starts that many simulated clusters; anything but 0–1000 is refused', () => {
  assert.equal(hubConfig([]).demoFleet, 0);
  assert.equal(hubConfig(['--demo-fleet', '3']).demoFleet, 3);
  assert.throws(() => hubConfig(['--demo-fleet', 'many']), /--demo-fleet: expected a number of clusters/);
  assert.throws(() => hubConfig(['--demo-fleet', '5000']), /from 0 to 1000/);
});
