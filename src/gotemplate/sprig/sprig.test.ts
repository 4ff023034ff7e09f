// Differential tests for the sprig library: each case's direct function call, formatted as the
// template would print it, must equal what helm 4.1.4 rendered for the snippet (oracle.ts).

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { describe, test } from 'node:test';
import { goInt64, goTypeName, type GoValue } from '../value.js';
import { SPRIG_CASES, SPRIG_ERROR_CASES, SPRIG_SHAPE_CASES } from './cases.js';
import { bcryptHash } from './bcrypt.js';
import { formatGo } from './cast.js';
import type { SprigCertificate } from './certs.js';
import { deepCopyValue } from './collections.js';
import { sprigFunctions } from './index.js';
import { HELM_ERRORS, HELM_OUTPUT } from './oracle.js';

const fns = sprigFunctions();

/** What {{ value }} prints in helm: nil is `<no value>`, which helm then blanks. */
function printed(v: GoValue): string {
  if (v === null) return '';
  return formatGo(v).replaceAll('<no value>', '');
}

function call(fn: string, args: GoValue[]): GoValue {
  const f = fns[fn];
  assert.ok(f, `function ${fn} exists`);
  // Copies, since set/unset/merge mutate their arguments and cases are shared.
  return f(...args.map(deepCopyValue));
}

describe('sprig against helm 4.1.4', () => {
  for (const c of SPRIG_CASES) {
    test(c.tpl, () => {
      const want = HELM_OUTPUT[c.tpl];
      assert.notEqual(want, undefined, 'case is in the oracle table');
      let got = printed(call(c.fn, c.args));
      // keys' order is Go map order (random): the snippets sort it, the direct call does not.
      if (c.fn === 'keys') got = printed([...(call(c.fn, c.args) as string[])].sort());
      assert.equal(got, want);
    });
  }
  for (const c of SPRIG_ERROR_CASES) {
    test(`fails: ${c.tpl}`, () => {
      assert.ok(HELM_ERRORS[c.tpl], 'helm failed too');
      assert.throws(() => call(c.fn, c.args));
    });
  }
  for (const c of SPRIG_SHAPE_CASES) {
    test(`shape: ${c.tpl}`, () => {
      const helm = HELM_OUTPUT[c.tpl];
      assert.match(helm ?? '', c.shape, 'helm output has the shape');
      assert.match(printed(call(c.fn, c.args)), c.shape);
    });
  }
});

describe('sprig details', () => {
  test('every function helm exposes from sprig is present, env/expandenv are not', () => {
    for (const name of [
      'semverCompare',
      'dig',
      'mustMergeOverwrite',
      'regexReplaceAll',
      'toDate',
      'osBase',
    ]) {
      assert.ok(name in fns, name);
    }
    assert.ok(!('env' in fns) && !('expandenv' in fns));
  });
  test('typeOf knows sprig results that are Go []string / []int', () => {
    assert.equal(fns.typeOf!(fns.splitList!(',', 'a,b')), '[]string');
    assert.equal(fns.typeOf!(fns.until!(2n)), '[]int');
  });
  test('bcrypt matches a hash helm 4.1.4 made (same salt)', () => {
    assert.equal(
      bcryptHash('x', 10, 'UD0eLoZZsHYZiap26Lznme'),
      '$2a$10$UD0eLoZZsHYZiap26LznmelTesANVap3B2WtvDiu7bgep1T4bZ8k6',
    );
  });
  test('argument counts are checked as text/template does', () => {
    assert.throws(() => fns.repeat!(1n, 'a', 'b'), /^Error: wrong number of args for repeat: want 2 got 3$/);
    assert.throws(() => fns.mul!(), /want at least 1 got 0/);
  });
  test("genCA / genSignedCert make a verifiable chain shaped like helm's", () => {
    const ca = fns.genCA!('my-ca', 365n) as SprigCertificate;
    const c = fns.genSignedCert!('svc', ['10.0.0.1'], ['svc.ns'], 30n, ca) as SprigCertificate;
    const xca = new X509Certificate(ca.Cert);
    const x = new X509Certificate(c.Cert);
    assert.equal(xca.ca, true);
    assert.equal(x.subject, 'CN=svc');
    assert.equal(x.subjectAltName, 'DNS:svc.ns, IP Address:10.0.0.1');
    assert.ok(x.checkIssued(xca) && x.verify(xca.publicKey));
    assert.match(c.Key, /^-----BEGIN RSA PRIVATE KEY-----\n/);
    assert.equal(formatGo(ca), `{${ca.Cert} ${ca.Key}}`);
    const ek = fns.genPrivateKey!('ecdsa') as string;
    const self = fns.genSelfSignedCertWithKey!('x', null, null, 1n, ek) as SprigCertificate;
    assert.equal(self.Key, ek);
    assert.ok(new X509Certificate(self.Cert).verify(new X509Certificate(self.Cert).publicKey));
  });
  test('add returns int64 and addf float64', () => {
    assert.deepEqual(call('add', [1n, 2.5]), goInt64(3n));
    assert.equal(goTypeName(call('add', [1n, 2.5])), 'int64');
    assert.equal(call('addf', [1n, 2.5]), 3.5);
  });
  test('int64 arithmetic wraps', () => {
    assert.deepEqual(call('add', [9223372036854775807n, 1n]), goInt64(-9223372036854775808n));
  });
  test('merge mutates and returns dst', () => {
    const dst = { a: 1n };
    const out = fns.merge!(dst, { b: 2n });
    assert.equal(out, dst);
    assert.deepEqual(dst, { a: 1n, b: 2n });
  });
});
