// .Files behaviour checked against `helm template` of helm 4.1.4 (expected strings are its output).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TemplateSet } from '../gotemplate/template.js';
import { helmFunctions } from './functions.js';
import { chartFilesForFilesObject, compileGlob, filesObject } from './files.js';

const files = new Map<string, Buffer>([
  ['conf/a.txt', Buffer.from('hi\n')],
  ['conf/b.yaml', Buffer.from('x: "y"\nmulti\nline\n')],
  ['conf/sub/c.txt', Buffer.from('deep')],
  ['empty.txt', Buffer.alloc(0)],
]);

function render(src: string, f: Map<string, Buffer> = files): string {
  const set = new TemplateSet({ funcs: helmFunctions(), missingKey: 'zero' });
  set.parse('t', src);
  return set.execute('t', { Files: filesObject(f) });
}

test('.Files and a Glob result print as Go prints a map[string][]byte', () => {
  assert.equal(
    render('{{ .Files.Glob "conf/*" }}'),
    'map[conf/a.txt:[104 105 10] conf/b.yaml:[120 58 32 34 121 34 10 109 117 108 116 105 10 108 105 110 101 10]]',
  );
  assert.equal(
    render('{{ .Files | typeOf }} {{ .Files.GetBytes "conf/a.txt" | typeOf }}'),
    'engine.files []uint8',
  );
  assert.equal(render('{{ .Files.GetBytes "conf/a.txt" }} {{ .Files.GetBytes "nope" }}'), '[104 105 10] []');
});

test('range, len and index see the files as a map', () => {
  assert.equal(
    render('{{ range $k, $v := .Files }}{{ $k }} {{ end }}'),
    'conf/a.txt conf/b.yaml conf/sub/c.txt empty.txt ',
  );
  assert.equal(render('{{ len .Files }} {{ index .Files "conf/a.txt" }}'), '4 [104 105 10]');
});

test('Get and Lines', () => {
  assert.equal(render('{{ .Files.Get "nope" | quote }}'), '""');
  assert.equal(render('{{ .Files.Lines "conf/b.yaml" | toJson }}'), '["x: \\"y\\"","multi","line"]');
  assert.equal(render('{{ .Files.Lines "nope" | toJson }}'), '[]');
  // helm 4.1.4 panics on an empty file: "error calling Lines: runtime error: index out of range [-1]".
  assert.throws(
    () => render('{{ .Files.Lines "empty.txt" }}'),
    /error calling Lines: runtime error: index out of range \[-1\]/,
  );
});

test('AsConfig and AsSecrets: base names, sorted, block scalars; "{}" when nothing matched', () => {
  assert.equal(
    render('{{ (.Files.Glob "conf/**").AsConfig }}'),
    'a.txt: |\n  hi\nb.yaml: |\n  x: "y"\n  multi\n  line\nc.txt: deep',
  );
  assert.equal(
    render('{{ (.Files.Glob "conf/*").AsSecrets }}'),
    'a.txt: aGkK\nb.yaml: eDogInkiCm11bHRpCmxpbmUK',
  );
  assert.equal(
    render('{{ (.Files.Glob "nope/*").AsConfig | quote }} {{ (.Files.Glob "nope/*").AsSecrets | quote }}'),
    '"{}" "{}"',
  );
});

test('Glob follows gobwas/glob with / as separator', () => {
  const names = ['a.txt', 'ab.txt', 'b.txt', 'd/a.txt', 'd/e/f.txt', 'x/[z].txt', 'x/y.txt'];
  const glob = (p: string): string => names.filter(compileGlob(p)).join(' ');
  assert.equal(glob('*'), 'a.txt ab.txt b.txt');
  assert.equal(glob('d/*'), 'd/a.txt');
  assert.equal(glob('d/**'), 'd/a.txt d/e/f.txt');
  assert.equal(glob('**.txt'), names.join(' '));
  assert.equal(glob('?.txt'), 'a.txt b.txt');
  assert.equal(glob('[ab].txt'), 'a.txt b.txt');
  assert.equal(glob('[!a].txt'), 'b.txt');
  assert.equal(glob('d[!a]a.txt'), 'd/a.txt', 'a negated class matches the separator');
  assert.equal(glob('[a-b]*.txt'), 'a.txt ab.txt b.txt');
  assert.equal(glob('{a,d/a}.txt'), 'a.txt d/a.txt');
  assert.equal(glob('{a.txt,d/a.txt'), 'a.txt d/a.txt', 'an unclosed { closes at the end');
  assert.equal(glob('x/\\[z].txt'), 'x/[z].txt');
  assert.equal(glob('x/[z]].txt'), '');
  assert.equal(glob('x/[z'), names.join(' '), 'a pattern that does not compile matches everything');
  assert.equal(glob('***'), names.join(' '));
});

test('chartFilesForFilesObject keeps what helm puts in chart.Files', () => {
  const all = new Map<string, Buffer>(
    [
      'Chart.yaml',
      'Chart.lock',
      'values.yaml',
      'values.schema.json',
      'README.md',
      '.helmignore',
      'templates/x.yaml',
      'charts/sub/Chart.yaml',
      'charts/foo.prov',
      'requirements.yaml',
      'conf/a.txt',
    ].map((n) => [n, Buffer.from(n === 'Chart.yaml' ? 'apiVersion: v2\nname: c\n' : 'x')]),
  );
  assert.deepEqual([...chartFilesForFilesObject(all).keys()].sort(), [
    '.helmignore',
    'README.md',
    'charts/foo.prov',
    'conf/a.txt',
  ]);
  assert.ok(chartFilesForFilesObject(all, 'v1').has('requirements.yaml'));
});
