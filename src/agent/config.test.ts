import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentConfig } from './config.js';

const base = ['--hub', 'https://hub.example:8443', '--ca-file', 'ca.crt', '--state-dir', '/var/lib/a'];

describe('fleethub agent flags', () => {
  test('a cluster agent with a token file; defaults', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-config-'));
    writeFileSync(join(dir, 'token'), 'fh_0123456789abcdef_secret\n');
    const c = agentConfig([...base, '--kubeconfig', 'k.yaml', '--join-token-file', join(dir, 'token')], {});
    assert.equal(c.role, 'cluster');
    assert.equal(c.joinToken, 'fh_0123456789abcdef_secret');
    assert.equal(c.leaseDurationSeconds, 60);
    assert.equal(c.hubUrl, 'https://hub.example:8443');
  });

  test('the token file wins over the environment, the environment over the flag', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-config-'));
    writeFileSync(join(dir, 'token'), 'from-file');
    const env = { FLEETHUB_JOIN_TOKEN: 'from-env' };
    assert.equal(
      agentConfig(
        [...base, '--host', '--join-token', 'from-flag', '--join-token-file', join(dir, 'token')],
        env,
      ).joinToken,
      'from-file',
    );
    assert.equal(agentConfig([...base, '--host', '--join-token', 'from-flag'], env).joinToken, 'from-env');
    assert.equal(agentConfig([...base, '--host', '--join-token', 'from-flag'], {}).joinToken, 'from-flag');
    assert.equal(agentConfig([...base, '--host'], {}).joinToken, undefined, 'a restart needs no token');
  });

  test('host agents opt in to k3s work through the environment', () => {
    assert.equal(agentConfig([...base, '--host'], { FLEETHUB_AGENT_K3S_ENABLED: '1' }).k3sEnabled, true);
    assert.equal(agentConfig([...base, '--host'], {}).k3sEnabled, false);
  });

  test('mistakes name the flag', () => {
    const cases: [string[], RegExp][] = [
      [['--ca-file', 'c', '--state-dir', 'd', '--host'], /--hub URL is required/],
      [['--hub', 'http://h', '--ca-file', 'c', '--state-dir', 'd', '--host'], /must be an https:\/\/ URL/],
      [['--hub', 'https://h', '--state-dir', 'd', '--host'], /--ca-file FILE is required/],
      [['--hub', 'https://h', '--ca-file', 'c', '--host'], /--state-dir DIR is required/],
      [[...base], /exactly one of --kubeconfig FILE .* or --host/],
      [[...base, '--host', '--kubeconfig', 'k'], /exactly one of/],
      [
        [...base, '--host', '--lease-duration-seconds', '0'],
        /--lease-duration-seconds must be a whole number/,
      ],
      [
        [...base, '--host', '--join-token-file', '/nonexistent/token'],
        /--join-token-file \/nonexistent\/token: ENOENT/,
      ],
      [[...base, '--host', '--bogus'], /unknown flag --bogus/],
      [[...base, '--host', '--kubeconfig'], /--kubeconfig needs a value/],
    ];
    for (const [argv, message] of cases) assert.throws(() => agentConfig(argv, {}), message, argv.join(' '));
  });
});
