// Apply bodies: JSON (what kubectl, helm and the agent send) and YAML decode alike; malformed is a 400.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeApplyBody } from './body.js';
import { ApiError } from '../util/errors.js';

describe('decodeApplyBody', () => {
  test('JSON, YAML and a YAML flow mapping that only looks like JSON give the same object', () => {
    const want = { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } };
    const json = Buffer.from(`  \n${JSON.stringify(want)}`);
    const yaml = Buffer.from('apiVersion: v1\nkind: ConfigMap\ndata:\n  a: "1"\n');
    const flow = Buffer.from('{apiVersion: v1, kind: ConfigMap, data: {a: "1"}}');
    for (const body of [json, yaml, flow]) assert.deepEqual(decodeApplyBody(body), want);
  });

  test('a malformed body is a 400 that says so', () => {
    for (const text of ['{"a": ', 'a: [1, 2', '']) {
      assert.throws(
        () => decodeApplyBody(Buffer.from(text)),
        (e: unknown) => e instanceof ApiError && e.code === 400 && /request body/.test(e.message),
      );
    }
  });
});
