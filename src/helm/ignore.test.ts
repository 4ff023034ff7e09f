// .helmignore rules and the chart directory walk, checked against helm 4.1.4 on throwaway charts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ChartLoadError, goMatch, loadDirectoryFiles, parseIgnore } from './ignore.js';

function chartDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'helmignore-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

test('rules: comments, base-name and path patterns, rooted and directory-only rules', () => {
  const r = parseIgnore('# c\n\n*.bak\nsec/\n/top.txt\nd/x*\n');
  assert.equal(r.ignores('a.bak', false), true);
  assert.equal(r.ignores('deep/a.bak', false), true, 'a pattern without / tests the base name');
  assert.equal(r.ignores('sec', true), true);
  assert.equal(r.ignores('sec', false), false, 'a trailing / matches directories only');
  assert.equal(r.ignores('top.txt', false), true);
  assert.equal(r.ignores('keep/top.txt', false), false);
  assert.equal(r.ignores('d/x1', false), true);
  assert.equal(r.ignores('templates/.hidden', false), true, "helm's default rule");
  assert.equal(r.ignores('.', true), false);
});

test('a negated rule ignores everything it does not match (helm, unlike git)', () => {
  const r = parseIgnore('!keep\n');
  assert.equal(r.ignores('keep', true), false);
  assert.equal(r.ignores('Chart.yaml', false), true);
});

test("** and malformed globs are errors with helm's messages", () => {
  assert.throws(() => parseIgnore('a/**\n'), new ChartLoadError('double-star (**) syntax is not supported'));
  assert.throws(() => parseIgnore('[\n'), new ChartLoadError('syntax error in pattern'));
});

test('goMatch is filepath.Match', () => {
  assert.equal(goMatch('*.txt', 'a.txt'), true);
  assert.equal(goMatch('*', 'a/b'), false);
  assert.equal(goMatch('a[b-d].txt', 'ac.txt'), true);
  assert.equal(goMatch('a[^b].txt', 'ab.txt'), false);
  assert.equal(goMatch('a?c', 'a/c'), false);
  assert.equal(goMatch('\\*', '*'), true);
});

test('loadDirectoryFiles applies .helmignore, follows symlinks, skips ignored directories whole', () => {
  const dir = chartDir({
    'Chart.yaml': 'apiVersion: v2\nname: i\nversion: 0.1.0\n',
    '.helmignore': '# c\n\n*.bak\nsec/\n/top.txt\nd/x*\n',
    'a.bak': 'x',
    'top.txt': 'x',
    'keep/top.txt': 'x',
    'keep/b.txt': '\uFEFFbom',
    'sec/s.txt': 'x',
    'd/x1': 'x',
    'd/y': 'x',
    'templates/.hidden': 'x',
    'templates/NOTES.txt': 'x',
  });
  try {
    symlinkSync('keep', join(dir, 'lk'));
    const files = loadDirectoryFiles(dir);
    assert.deepEqual(
      [...files.keys()],
      [
        '.helmignore',
        'Chart.yaml',
        'd/y',
        'keep/b.txt',
        'keep/top.txt',
        'lk/b.txt',
        'lk/top.txt',
        'templates/NOTES.txt',
      ],
    );
    assert.equal(files.get('keep/b.txt')?.toString(), 'bom', 'the UTF-8 BOM is dropped');
    symlinkSync('nowhere', join(dir, 'broken'));
    assert.throws(
      () => loadDirectoryFiles(dir),
      new ChartLoadError(
        `error evaluating symlink ${join(dir, 'broken')}: lstat ${join(dir, 'nowhere')}: no such file or directory`,
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
