import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileJsonPath, evaluateJsonPath } from './jsonpath.js';

const pod = {
  metadata: { name: 'web-1', labels: { app: 'web', 'app.kubernetes.io/name': 'shop' } },
  spec: {
    replicas: 3,
    containers: [
      { name: 'app', image: 'nginx', ports: [{ containerPort: 80 }] },
      { name: 'sidecar', image: 'envoy', ports: [{ containerPort: 9901 }, { containerPort: 15000 }] },
    ],
  },
  status: {
    conditions: [
      { type: 'Initialized', status: 'True', count: 1 },
      { type: 'Ready', status: 'False', count: 4 },
    ],
    empty: null,
  },
};

void test('field paths, with or without braces, reach nested values', () => {
  assert.deepEqual(evaluateJsonPath('.spec.replicas', pod), [3]);
  assert.deepEqual(evaluateJsonPath('{.metadata.name}', pod), ['web-1']);
  assert.deepEqual(evaluateJsonPath('$.metadata.labels.app', pod), ['web']);
  assert.deepEqual(evaluateJsonPath('.metadata', pod), [pod.metadata]);
});

void test('missing keys find nothing instead of failing; explicit null is a value', () => {
  assert.deepEqual(evaluateJsonPath('.spec.missing.deeper', pod), []);
  assert.deepEqual(evaluateJsonPath('.spec.replicas.x', pod), []);
  assert.deepEqual(evaluateJsonPath('.status.empty', pod), [null]);
});

void test('indexes, negative indexes, slices and wildcards', () => {
  assert.deepEqual(evaluateJsonPath('.spec.containers[0].name', pod), ['app']);
  assert.deepEqual(evaluateJsonPath('.spec.containers[-1].name', pod), ['sidecar']);
  assert.deepEqual(evaluateJsonPath('.spec.containers[5].name', pod), []);
  assert.deepEqual(evaluateJsonPath('.spec.containers[*].image', pod), ['nginx', 'envoy']);
  assert.deepEqual(evaluateJsonPath('.spec.containers[*].ports[*].containerPort', pod), [80, 9901, 15000]);
  assert.deepEqual(evaluateJsonPath('.spec.containers[0:1].name', pod), ['app']);
  assert.deepEqual(evaluateJsonPath('.status.conditions.*', pod), pod.status.conditions);
  assert.deepEqual(evaluateJsonPath('.metadata.labels.*', pod), ['web', 'shop']);
});

void test('filters select array items by comparison or existence', () => {
  assert.deepEqual(evaluateJsonPath('.status.conditions[?(@.type=="Ready")].status', pod), ['False']);
  assert.deepEqual(evaluateJsonPath(".status.conditions[?(@.type == 'Ready')].status", pod), ['False']);
  assert.deepEqual(evaluateJsonPath('.status.conditions[?(@.type!="Ready")].type', pod), ['Initialized']);
  assert.deepEqual(evaluateJsonPath('.status.conditions[?(@.count>1)].type', pod), ['Ready']);
  assert.deepEqual(evaluateJsonPath('.status.conditions[?(@.count<=1)].type', pod), ['Initialized']);
  assert.deepEqual(evaluateJsonPath('.spec.containers[?(@.ports)].name', pod), ['app', 'sidecar']);
  assert.deepEqual(evaluateJsonPath('.status.conditions[?(@.type=="Gone")].status', pod), []);
  // Kubernetes filters only arrays.
  assert.deepEqual(evaluateJsonPath('.metadata[?(@.name=="web-1")].name', pod), []);
});

void test('keys with dots: bracket strings and escaped dots', () => {
  assert.deepEqual(evaluateJsonPath(".metadata.labels['app.kubernetes.io/name']", pod), ['shop']);
  assert.deepEqual(evaluateJsonPath('.metadata.labels.app\\.kubernetes\\.io/name', pod), ['shop']);
});

void test('recursive descent collects a field at every depth', () => {
  assert.deepEqual(evaluateJsonPath('..containerPort', pod), [80, 9901, 15000]);
});

void test('syntax errors are reported with the expression', () => {
  assert.throws(() => compileJsonPath('.spec.containers[0'), /invalid JSONPath ".spec.containers\[0"/);
  assert.throws(() => compileJsonPath('.status.conditions[?(@.type=="Ready"]'), /invalid JSONPath/);
  assert.throws(() => compileJsonPath('.a b'), /invalid JSONPath/);
});
