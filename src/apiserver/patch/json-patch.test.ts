// Tests for RFC 6902 JSON patch: every operation, pointer escaping, array positions, the apiserver's
// extensions (negative indices, replace-adds), and 400/413/422 answers naming the failing op and path.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../util/errors.js';
import type { JsonValue } from './json.js';
import { applyJsonPatch, MAX_JSON_PATCH_OPERATIONS } from './json-patch.js';

function rejects(fn: () => unknown, code: number, message: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.equal(e.reason, code === 422 ? 'Invalid' : code === 400 ? 'BadRequest' : 'RequestEntityTooLarge');
    if (typeof message === 'string') assert.equal(e.message, message);
    else assert.match(e.message, message);
    return true;
  });
}

const cm = { metadata: { name: 'cm', labels: { app: 'web' } }, data: { key: 'v1' }, list: ['a', 'b', 'c'] };

void describe('applyJsonPatch', () => {
  void it('adds object members and inserts or appends array elements', () => {
    assert.deepEqual(
      applyJsonPatch(cm, [
        { op: 'add', path: '/data/new', value: 'n' },
        { op: 'add', path: '/list/1', value: 'x' },
        { op: 'add', path: '/list/-', value: 'z' },
        { op: 'add', path: '/list/5', value: 'end' },
        { op: 'add', path: '/data/key', value: 'overwritten' },
      ]),
      { ...cm, data: { key: 'overwritten', new: 'n' }, list: ['a', 'x', 'b', 'c', 'z', 'end'] },
    );
  });

  void it('removes members and elements', () => {
    assert.deepEqual(
      applyJsonPatch(cm, [
        { op: 'remove', path: '/metadata/labels/app' },
        { op: 'remove', path: '/list/0' },
      ]),
      { ...cm, metadata: { name: 'cm', labels: {} }, list: ['b', 'c'] },
    );
  });

  void it('replaces values, and like the apiserver also sets a missing object member', () => {
    assert.deepEqual(
      applyJsonPatch(cm, [
        { op: 'replace', path: '/data/key', value: { nested: true } },
        { op: 'replace', path: '/list/2', value: 'C' },
        { op: 'replace', path: '/metadata/labels/absent', value: 'set' },
      ]),
      {
        ...cm,
        metadata: { name: 'cm', labels: { app: 'web', absent: 'set' } },
        data: { key: { nested: true } },
        list: ['a', 'b', 'C'],
      },
    );
  });

  void it('moves and copies, with copies independent of their source', () => {
    const result = applyJsonPatch(cm, [
      { op: 'move', from: '/data/key', path: '/data/moved' },
      { op: 'copy', from: '/metadata/labels', path: '/data/labels' },
      { op: 'add', path: '/data/labels/extra', value: '1' },
      { op: 'move', from: '/list/0', path: '/list/-' },
    ]);
    assert.deepEqual(result, {
      ...cm,
      data: { moved: 'v1', labels: { app: 'web', extra: '1' } },
      list: ['b', 'c', 'a'],
    });
  });

  void it('passes tests on equal values, member order aside', () => {
    const doc = { a: { x: 1, y: [1, { z: null }] } };
    assert.deepEqual(
      applyJsonPatch(doc, [
        { op: 'test', path: '/a', value: { y: [1, { z: null }], x: 1 } },
        { op: 'test', path: '', value: doc },
        { op: 'test', path: '/a/absent', value: null },
      ]),
      doc,
    );
  });

  void it('unescapes ~1 and ~0 in pointers', () => {
    const doc = { metadata: { annotations: { 'example.com/a~b': 'old' } } };
    assert.deepEqual(
      applyJsonPatch(doc, [{ op: 'replace', path: '/metadata/annotations/example.com~1a~0b', value: 'new' }]),
      { metadata: { annotations: { 'example.com/a~b': 'new' } } },
    );
  });

  void it('counts negative indices from the end, as the apiserver does', () => {
    assert.deepEqual(applyJsonPatch({ l: [1, 2, 3] }, [{ op: 'replace', path: '/l/-1', value: 9 }]), {
      l: [1, 2, 9],
    });
    assert.deepEqual(applyJsonPatch({ l: [1, 2, 3] }, [{ op: 'remove', path: '/l/-3' }]), { l: [2, 3] });
  });

  void it('replaces the whole document with an empty path', () => {
    assert.deepEqual(applyJsonPatch(cm, [{ op: 'replace', path: '', value: { metadata: {} } }]), {
      metadata: {},
    });
  });

  void it('answers 422 for a failed test, naming op and path', () => {
    rejects(
      () => applyJsonPatch(cm, [{ op: 'test', path: '/data/key', value: 'v2' }]),
      422,
      'json patch test operation on "/data/key" failed: the value at "/data/key" is not equal to the expected value',
    );
    rejects(() => applyJsonPatch(cm, [{ op: 'test', path: '/data/absent', value: 'x' }]), 422, /not equal/);
  });

  void it('answers 422 for operations that do not apply', () => {
    rejects(
      () => applyJsonPatch(cm, [{ op: 'remove', path: '/data/absent' }]),
      422,
      'json patch remove operation on "/data/absent" failed: the path "/data/absent" does not exist',
    );
    rejects(
      () => applyJsonPatch(cm, [{ op: 'add', path: '/spec/replicas', value: 1 }]),
      422,
      'json patch add operation on "/spec/replicas" failed: the path "/spec" does not exist',
    );
    rejects(
      () => applyJsonPatch(cm, [{ op: 'add', path: '/list/4', value: 'x' }]),
      422,
      /index 4 is out of range for an array of 3 items/,
    );
    rejects(() => applyJsonPatch(cm, [{ op: 'replace', path: '/list/3', value: 'x' }]), 422, /out of range/);
    rejects(
      () => applyJsonPatch(cm, [{ op: 'remove', path: '/list/-' }]),
      422,
      /"-" is not a valid array index/,
    );
    rejects(
      () => applyJsonPatch(cm, [{ op: 'add', path: '/data/key/x', value: 1 }]),
      422,
      /"\/data\/key" is not an object or array/,
    );
    rejects(
      () => applyJsonPatch(cm, [{ op: 'move', from: '/data/absent', path: '/data/x' }]),
      422,
      'json patch move operation from "/data/absent" to "/data/x" failed: the path "/data/absent" does not exist',
    );
    rejects(
      () => applyJsonPatch(cm, [{ op: 'copy', from: '/nope', path: '/x' }]),
      422,
      /copy operation from "\/nope"/,
    );
    rejects(
      () => applyJsonPatch(cm, [{ op: 'move', from: '/metadata', path: '/metadata/x' }]),
      422,
      /its own child/,
    );
    rejects(() => applyJsonPatch(cm, [{ op: 'remove', path: '' }]), 422, /root cannot be removed/);
    rejects(
      () => applyJsonPatch(cm, [{ op: 'add', path: 'data/x', value: 1 }]),
      422,
      /must be "" or start with "\/"/,
    );
  });

  void it('answers 422 for operations that are not well formed', () => {
    rejects(
      () => applyJsonPatch(cm, [{ op: 'frobnicate', path: '/a' }]),
      422,
      /operation 0 failed: unknown op "frobnicate"/,
    );
    rejects(() => applyJsonPatch(cm, [{ path: '/a' }]), 422, /unknown op null/);
    rejects(() => applyJsonPatch(cm, [{ op: 'add', value: 1 }]), 422, /"path" must be a string/);
    rejects(() => applyJsonPatch(cm, [{ op: 'add', path: '/x' }]), 422, /"value" is required/);
    rejects(() => applyJsonPatch(cm, [{ op: 'copy', path: '/x' }]), 422, /"from" must be a string/);
  });

  void it('answers 400 when the body is not a list of operation objects, 413 beyond the operation cap', () => {
    rejects(
      () => applyJsonPatch(cm, { op: 'add' }),
      400,
      'json patch must be a JSON array of operations, got an object',
    );
    rejects(
      () => applyJsonPatch(cm, ['add']),
      400,
      'json patch operation 0 must be a JSON object, got a string',
    );
    const many = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({
      op: 'test',
      path: '',
      value: {},
    }));
    rejects(() => applyJsonPatch(cm, many), 413, /maximum operations in a JSON patch is 10000, got 10001/);
  });

  void it('is all or nothing and never modifies its inputs', () => {
    const doc = structuredClone(cm);
    const ops: JsonValue = [
      { op: 'add', path: '/data/obj', value: { deep: 1 } },
      { op: 'test', path: '/data/key', value: 'nope' },
    ];
    const before = structuredClone(ops);
    rejects(() => applyJsonPatch(doc, ops), 422, /test operation/);
    assert.deepEqual(doc, cm);
    const result = applyJsonPatch(doc, [ops[0]!]) as { data: { obj: { deep: number } } };
    result.data.obj.deep = 2;
    assert.deepEqual(ops, before);
    assert.deepEqual(doc, cm);
  });
});
