import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fastHead } from './head.js';
import { parseHead, splitManifests } from './manifests.js';

const CHARTS = join(fileURLToPath(new URL('../../..', import.meta.url)), 'test', 'gotemplate', 'charts');

/** Every document helm printed for the chart corpus. */
function corpusDocuments(): string[] {
  const files = [
    ...readdirSync(CHARTS)
      .filter((f) => f.endsWith('.expected.yaml'))
      .map((f) => join(CHARTS, f)),
    ...readdirSync(join(CHARTS, 'expected'))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => join(CHARTS, 'expected', f)),
  ];
  return files.flatMap((f) => splitManifests(readFileSync(f, 'utf8')));
}

// Documents the fast reader must either read exactly as the full parser does, or leave to it.
const EDGE_CASES = [
  'kind: Job\nmetadata:\n  name: a\n  annotations:\n    helm.sh/hook: pre-install\n',
  'kind: y\n',
  'kind: "y"\n',
  "kind: 'it''s'\n",
  'kind: 5\n',
  'kind: Pod # a comment\n',
  'kind: a: b\n',
  'kind: Pod\nkind: Job\n',
  'metadata:\n  annotations:\n',
  'metadata:\n  annotations: {}\n',
  'metadata:\n  annotations:\n  name: x\nkind: K\n',
  'metadata:\n  annotations:\n    a: "1"\n    b: 2\n',
  'metadata:\n  annotations:\n    helm.sh/hook: |\n      pre-install\n',
  'metadata:\n  annotations:\n    helm.sh/hook: >-\n      pre-install\n',
  'metadata:\n  name: x\n   bad: indent\n',
  'metadata:\n name: x\n  bad: indent\n',
  'spec:\n  containers:\n  - name: a\n    image: b\n  - name: c\n',
  'spec:\n  containers:\n    - name: a\n      args:\n        - x\n        - "y"\n',
  'data:\n  script: |\n    #!/bin/sh\n    echo: hi\n\n    done\nkind: ConfigMap\n',
  'data:\n  script: |\n      deep\n    shallow\n',
  'a:\n  - b\n - c\n',
  'a: [1, 2]\nkind: X\n',
  'a: {}\nb: []\nkind: X\n',
  'a: &anchor x\nkind: X\n',
  'a: !!str x\nkind: X\n',
  'a: multi\n  line plain\nkind: X\n',
  'a: "unterminated\nkind: X\n',
  '"quoted key": v\nkind: X\n',
  '? complex\n: key\n',
  'kind:\n  nested: map\n',
  'metadata: []\n',
  'metadata:\n  annotations:\n    - a\n',
  'metadata:\n  annotations:\n    helm.sh/hook: pre-install\n    helm.sh/hook-weight: "5"\n  name: n\nkind: Job\n',
  '# only a comment',
  '',
  '  indented: root\n',
  'a:\n- x\n- y\nkind: Z\n',
  '- a\n- b\n',
  'key: value\n\tkind: tab\n',
  'a: b\n...\n',
  'list:\n- name: a\n  value: 1\n- name: b\nkind: K\n',
  'a: x #c\nb: "q" # c\nkind: K # k\n',
  'a: -1\nb: -x\nc: - x\n',
  'a: @x\n',
  "a: ['wget']\nkind: K\n",
  'a: [\'r-demo:80\', "x", y-z, -1]\n',
  'a: [ ]\n',
  'a: [x,]\n',
  'a: [x y, z]\n',
  'a: [a: b]\n',
  'a: [x, [y]]\n',
  'kind: [x]\n',
  'a: ["bad \\q escape"]\n',
  'a: |\n  x\n \nkind: K\n',
];

test('the fast head reader agrees with the full parse on every document it accepts', () => {
  const docs = [...corpusDocuments(), ...EDGE_CASES];
  let accepted = 0;
  for (const doc of docs) {
    const fast = fastHead(doc);
    if (fast === undefined) continue;
    accepted++;
    let full;
    try {
      full = parseHead('x', doc);
    } catch (e) {
      assert.fail(`fast reader accepted a document the parser rejects (${(e as Error).message}):\n${doc}`);
    }
    assert.deepEqual(fast, full, doc);
  }
  // The point of the fast reader: most real documents never reach the full parser.
  const corpus = corpusDocuments();
  const corpusAccepted = corpus.filter((d) => fastHead(d) !== undefined).length;
  assert.ok(corpusAccepted / corpus.length > 0.8, `fast path took only ${corpusAccepted}/${corpus.length}`);
  assert.ok(accepted > 0);
});

test('documents outside the reader’s subset are left to the full parser', () => {
  for (const doc of [
    'kind: a: b\n',
    'a: &x 1\n',
    'a: [x, [y]]\n',
    'metadata:\n name: x\n  bad: indent\n',
    'kind: Pod\nkind: Job\n',
  ])
    assert.equal(fastHead(doc), undefined, doc);
});
