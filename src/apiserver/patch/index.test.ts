// Tests for applyPatch: Content-Type dispatch, 415 for unknown types and for strategic merge on custom
// resources, 400 for bodies that are not JSON, and results that are always new, storable objects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../store/types.js';
import { ApiError } from '../../util/errors.js';
import { acceptedPatchTypes, applyPatch, builtinPatchMeta, patchTypeOf } from './index.js';

const live: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', labels: { app: 'web' } },
  spec: { containers: [{ name: 'a', image: 'nginx' }] },
};
const podMeta = builtinPatchMeta('', 'Pod');

function apiError(fn: () => unknown, code: number, reason: string, message: RegExp): ApiError {
  let caught: ApiError | undefined;
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.equal(e.reason, reason);
    assert.match(e.message, message);
    caught = e;
    return true;
  });
  return caught!;
}

void describe('applyPatch', () => {
  const addSidecar = JSON.stringify({ spec: { containers: [{ name: 'b', image: 'busybox' }] } });

  void it('merges lists by key for strategic merge and replaces them for merge patch', () => {
    const smp = applyPatch('application/strategic-merge-patch+json', live, addSidecar, podMeta);
    assert.deepEqual(smp['spec'], {
      containers: [
        { name: 'b', image: 'busybox' },
        { name: 'a', image: 'nginx' },
      ],
    });
    const merge = applyPatch('application/merge-patch+json; charset=utf-8', live, addSidecar, podMeta);
    assert.deepEqual(merge['spec'], { containers: [{ name: 'b', image: 'busybox' }] });
  });

  void it('applies JSON patches, from a byte body too', () => {
    const body = new TextEncoder().encode(
      '[{"op":"replace","path":"/spec/containers/0/image","value":"nginx:2"}]',
    );
    const result = applyPatch('Application/JSON-Patch+JSON', live, body);
    assert.deepEqual(result['spec'], { containers: [{ name: 'a', image: 'nginx:2' }] });
  });

  void it('never modifies the live object', () => {
    const before = structuredClone(live);
    const result = applyPatch('application/merge-patch+json', live, '{"metadata":{"labels":{"app":"x"}}}');
    result.metadata.labels!['more'] = 'y';
    assert.deepEqual(live, before);
  });

  void it('refuses strategic merge without patch metadata (custom resources) with 415', () => {
    const e = apiError(
      () => applyPatch('application/strategic-merge-patch+json', live, addSidecar),
      415,
      'UnsupportedMediaType',
      /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml$/,
    );
    assert.equal(e.toStatus().code, 415);
  });

  void it('refuses unknown content types with 415 listing what a built-in accepts', () => {
    apiError(
      () => applyPatch('application/json', live, '{}', podMeta),
      415,
      'UnsupportedMediaType',
      /include: application\/json-patch\+json, application\/merge-patch\+json, application\/strategic-merge-patch\+json, application\/apply-patch\+yaml$/,
    );
    apiError(() => applyPatch(undefined, live, '{}', podMeta), 415, 'UnsupportedMediaType', /unknown format/);
  });

  void it('answers 400 for bodies that are not JSON, naming the problem', () => {
    apiError(
      () => applyPatch('application/merge-patch+json', live, '{"a":'),
      400,
      'BadRequest',
      /^invalid JSON patch: \S/,
    );
    apiError(
      () => applyPatch('application/json-patch+json', live, ''),
      400,
      'BadRequest',
      /request body is empty/,
    );
    apiError(
      () => applyPatch('application/merge-patch+json', live, '["x"]'),
      400,
      'BadRequest',
      /a merge patch must be a JSON object, got \["x"\]/,
    );
    apiError(
      () => applyPatch('application/strategic-merge-patch+json', live, 'null', podMeta),
      400,
      'BadRequest',
      /strategic merge patch must be a JSON object/,
    );
  });

  void it('keeps the result an object with metadata', () => {
    const noMeta = applyPatch('application/json-patch+json', live, '[{"op":"remove","path":"/metadata"}]');
    assert.deepEqual(noMeta.metadata, {});
    apiError(
      () => applyPatch('application/json-patch+json', live, '[{"op":"replace","path":"","value":[1]}]'),
      422,
      'Invalid',
      /not a JSON object/,
    );
    apiError(
      () => applyPatch('application/merge-patch+json', live, '{"metadata":"x"}'),
      422,
      'Invalid',
      /metadata that is not a JSON object/,
    );
  });

  void it('leaves server-side apply to its own handler', () => {
    assert.equal(patchTypeOf('application/apply-patch+yaml'), 'apply');
    apiError(
      () => applyPatch('application/apply-patch+yaml', live, '{}', podMeta),
      500,
      'InternalError',
      /apply/,
    );
  });

  void it('names the accepted types in apiserver order', () => {
    assert.deepEqual(acceptedPatchTypes(false), [
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    assert.equal(patchTypeOf(' application/strategic-merge-patch+json ;charset=UTF-8'), 'strategic');
    assert.equal(patchTypeOf('text/plain'), undefined);
  });
});
