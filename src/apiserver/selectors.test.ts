// Tests for label and field selectors: Kubernetes syntax, matching, and the 400 messages clients see.
// Expected messages follow apimachinery's labels/fields packages.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../store/types.js';
import { ApiError } from '../util/errors.js';
import {
  fieldSelectorPredicate,
  labelSelectorFromObject,
  parseFieldSelector,
  parseLabelRequirements,
  parseLabelSelector,
  validateLabelKey,
  validateLabelValue,
} from './selectors.js';

function badRequest(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

const web = { app: 'web', tier: 'frontend', env: 'prod' };
const db = { app: 'db', env: 'staging' };
const bare = {};

void describe('parseLabelSelector', () => {
  void it('matches equality in all three spellings', () => {
    for (const sel of ['app=web', 'app==web']) {
      const m = parseLabelSelector(sel);
      assert.equal(m(web), true, sel);
      assert.equal(m(db), false, sel);
      assert.equal(m(undefined), false, sel);
    }
    const ne = parseLabelSelector('app!=web');
    assert.equal(ne(web), false);
    assert.equal(ne(db), true);
    assert.equal(ne(bare), true, 'a missing label is "not equal"');
  });

  void it('matches set membership, and notin accepts objects without the label', () => {
    const inSel = parseLabelSelector('env in (prod, staging)');
    assert.equal(inSel(web), true);
    assert.equal(inSel(db), true);
    assert.equal(inSel({ env: 'dev' }), false);
    assert.equal(inSel(bare), false);
    const notIn = parseLabelSelector('env notin (prod)');
    assert.equal(notIn(web), false);
    assert.equal(notIn(db), true);
    assert.equal(notIn(bare), true);
  });

  void it('matches existence and absence', () => {
    assert.equal(parseLabelSelector('tier')(web), true);
    assert.equal(parseLabelSelector('tier')(db), false);
    assert.equal(parseLabelSelector('!tier')(web), false);
    assert.equal(parseLabelSelector('!tier')(db), true);
    assert.equal(parseLabelSelector('!tier')(undefined), true);
  });

  void it('ANDs comma-separated requirements and tolerates whitespace', () => {
    const m = parseLabelSelector('  app = web ,  env in ( prod , qa ),!missing,tier ');
    assert.equal(m(web), true);
    assert.equal(m({ ...web, missing: 'x' }), false);
    assert.equal(m({ ...web, env: 'staging' }), false);
  });

  void it('treats an empty selector as everything', () => {
    assert.equal(parseLabelSelector('')(bare), true);
    assert.equal(parseLabelSelector(undefined)(undefined), true);
    assert.equal(parseLabelSelector('   ')(web), true);
  });

  void it('accepts prefixed keys, empty values and the keywords as plain words', () => {
    assert.equal(parseLabelSelector('app.kubernetes.io/name=web')({ 'app.kubernetes.io/name': 'web' }), true);
    assert.equal(parseLabelSelector('app=')({ app: '' }), true);
    assert.equal(parseLabelSelector('app=')(web), false);
    assert.equal(parseLabelSelector('app in ()')({ app: '' }), true);
    assert.equal(parseLabelSelector('in=notin')({ in: 'notin' }), true);
    assert.equal(parseLabelSelector('a in (in, notin)')({ a: 'notin' }), true);
  });

  void it('compares integers with > and <', () => {
    assert.equal(parseLabelSelector('replicas>2')({ replicas: '3' }), true);
    assert.equal(parseLabelSelector('replicas>2')({ replicas: '2' }), false);
    assert.equal(parseLabelSelector('replicas<10')({ replicas: '9' }), true);
    assert.equal(parseLabelSelector('replicas<10')({ replicas: 'many' }), false);
    assert.equal(parseLabelSelector('replicas<10')(bare), false);
  });

  void it('exposes the parsed requirements sorted by key, with set values sorted and deduplicated', () => {
    assert.deepEqual(parseLabelRequirements('z=1,a in (c,b,c),!m'), [
      { key: 'a', operator: 'in', values: ['b', 'c'] },
      { key: 'm', operator: '!', values: [] },
      { key: 'z', operator: '=', values: ['1'] },
    ]);
  });

  void it('rejects malformed selectors with the apiserver messages', () => {
    badRequest(() => parseLabelSelector('env in'), "unable to parse requirement: found '' expected: '('");
    badRequest(() => parseLabelSelector('a=b c'), "found 'c', expected: ',' or 'end of string'");
    badRequest(() => parseLabelSelector(',a'), "found ',', expected: !, identifier, or 'end of string'");
    badRequest(() => parseLabelSelector('a,'), "found '', expected: identifier after ','");
    badRequest(
      () => parseLabelSelector('a in (b c)'),
      "unable to parse requirement: found 'c', expected: ',' or ')'",
    );
    badRequest(
      () => parseLabelSelector('a ~ b'),
      "unable to parse requirement: found '~', expected: in, notin, =, ==, !=, gt, lt",
    );
    badRequest(
      () => parseLabelSelector('a=(b)'),
      "unable to parse requirement: found '(', expected: identifier",
    );
    badRequest(() => parseLabelSelector('!a=b'), "found '=', expected: ',' or 'end of string'");
  });

  void it('rejects invalid keys and values with the validation message', () => {
    badRequest(
      () => parseLabelSelector('a@b=c'),
      'unable to parse requirement: <nil>: Invalid value: "a@b": name part must consist of alphanumeric ' +
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or " +
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
    badRequest(
      () => parseLabelSelector('app=-bad'),
      /^unable to parse requirement: values\[0\]\[app\]: Invalid value: "-bad": a valid label must be an empty string/,
    );
    badRequest(
      () => parseLabelSelector('replicas>x'),
      "unable to parse requirement: values[0]: Invalid value: \"x\": for 'Gt', 'Lt' operators, the value must be an integer",
    );
    badRequest(() => parseLabelSelector(`app=${'v'.repeat(64)}`), /must be no more than 63 bytes/);
  });
});

void describe('label key and value validation', () => {
  void it('accepts valid keys and values', () => {
    assert.deepEqual(validateLabelKey('app'), []);
    assert.deepEqual(validateLabelKey('example.com/My_Name-1.x'), []);
    assert.deepEqual(validateLabelValue(''), []);
    assert.deepEqual(validateLabelValue('v1.2_3-x'), []);
  });

  void it('names every problem', () => {
    assert.deepEqual(validateLabelKey('/x')[0], 'prefix part must be non-empty');
    assert.match(validateLabelKey('Example.com/x')[0]!, /^prefix part a lowercase RFC 1123 subdomain/);
    assert.equal(validateLabelKey('a/').length, 2, 'empty name: non-empty and regex errors');
    assert.match(validateLabelKey('a/b/c')[0]!, /with an optional DNS subdomain prefix and '\/'/);
    assert.deepEqual(validateLabelKey('k'.repeat(64)), ['name part must be no more than 63 bytes']);
    assert.equal(validateLabelValue('ends-').length, 1);
  });
});

void describe('labelSelectorFromObject', () => {
  void it('matches nothing for a null selector and everything for an empty one', () => {
    assert.equal(labelSelectorFromObject(null)(web), false);
    assert.equal(labelSelectorFromObject(undefined)(web), false);
    assert.equal(labelSelectorFromObject({})(web), true);
    assert.equal(labelSelectorFromObject({})(undefined), true);
  });

  void it('ANDs matchLabels and every expression operator', () => {
    const m = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'qa'] },
        { key: 'tier', operator: 'NotIn', values: ['backend'] },
        { key: 'tier', operator: 'Exists' },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(m(web), true);
    assert.equal(m({ ...web, legacy: 'y' }), false);
    assert.equal(m({ ...web, tier: 'backend' }), false);
    assert.equal(m({ ...web, env: 'dev' }), false);
    assert.equal(m(db), false);
  });

  void it('rejects unknown operators and invalid requirements', () => {
    badRequest(
      () => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }),
      '"Gt" is not a valid label selector operator',
    );
    badRequest(
      () => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    );
    badRequest(
      () => labelSelectorFromObject({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }),
      'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
    );
    badRequest(
      () => labelSelectorFromObject({ matchLabels: { 'a b': 'x' } }),
      /^key: Invalid value: "a b": name part/,
    );
  });
});

function pod(name: string, namespace: string, nodeName?: string, phase?: string): KubeObject {
  return {
    metadata: { name, namespace },
    spec: nodeName ? { nodeName } : {},
    status: phase ? { phase } : {},
  };
}

const podFields = {
  'spec.nodeName': (o: KubeObject) => (o['spec'] as { nodeName?: string }).nodeName,
  'status.phase': (o: KubeObject) => (o['status'] as { phase?: string }).phase,
};

void describe('field selectors', () => {
  void it('parses terms with their operators and unescapes values', () => {
    assert.deepEqual(
      parseFieldSelector('spec.nodeName==n1,status.phase!=Failed,metadata.name=a\\,b\\=c\\\\'),
      [
        { field: 'metadata.name', operator: '=', value: 'a,b=c\\' },
        { field: 'spec.nodeName', operator: '==', value: 'n1' },
        { field: 'status.phase', operator: '!=', value: 'Failed' },
      ],
    );
    assert.deepEqual(parseFieldSelector(''), []);
    assert.deepEqual(parseFieldSelector('a=b,,'), [{ field: 'a', operator: '=', value: 'b' }]);
  });

  void it('rejects malformed selectors like the apiserver', () => {
    badRequest(
      () => parseFieldSelector('a=b,nonsense'),
      "invalid selector: 'a=b,nonsense'; can't understand 'nonsense'",
    );
    badRequest(() => parseFieldSelector('a=b\\x'), 'invalid field selector: invalid escape sequence: \\x');
    badRequest(() => parseFieldSelector('a=b\\'), 'invalid field selector: invalid escape sequence: \\');
    badRequest(() => parseFieldSelector('a=b=c'), 'invalid field selector: unescaped character in value: 61');
  });

  void it('filters objects as drain and describe node do', () => {
    const pods = [
      pod('a', 'default', 'node1', 'Running'),
      pod('b', 'default', 'node1', 'Succeeded'),
      pod('c', 'kube-system', 'node2', 'Running'),
      pod('d', 'default', undefined, 'Pending'),
    ];
    const names = (sel: string) =>
      pods.filter(fieldSelectorPredicate(sel, podFields)).map((p) => p.metadata.name);
    assert.deepEqual(names('spec.nodeName=node1'), ['a', 'b']);
    assert.deepEqual(names('spec.nodeName=node1,status.phase!=Failed,status.phase!=Succeeded'), ['a']);
    assert.deepEqual(names('metadata.name=c'), ['c']);
    assert.deepEqual(names('metadata.namespace==default,metadata.name!=a'), ['b', 'd']);
    assert.deepEqual(names('spec.nodeName='), ['d'], 'an unset field compares as the empty string');
    assert.deepEqual(names(''), ['a', 'b', 'c', 'd']);
  });

  void it('supports metadata fields for every kind and rejects unknown labels up front', () => {
    const cm: KubeObject = { metadata: { name: 'cm1', namespace: 'ns' } };
    assert.equal(fieldSelectorPredicate('metadata.name=cm1')(cm), true);
    assert.equal(fieldSelectorPredicate(parseFieldSelector('metadata.namespace=other'))(cm), false);
    badRequest(() => fieldSelectorPredicate('spec.nodeName=n1'), 'field label not supported: spec.nodeName');
    badRequest(
      () => fieldSelectorPredicate('metadata.labels=x', podFields),
      'field label not supported: metadata.labels',
    );
  });
});
