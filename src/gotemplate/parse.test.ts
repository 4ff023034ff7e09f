// Tests for the lexer and parser on their own: item streams, trim markers, and Go's String() of
// parsed trees (what exec errors quote), independent of execution.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ItemType, lex } from './lex.js';
import { isEmptyTree, nodeString, parse } from './parse.js';

const anyFunc = { hasFunction: (n: string) => ['printf', 'len', 'index', 'and'].includes(n) };

describe('lexer', () => {
  it('emits Go item kinds with line numbers', () => {
    const items = lex('a\n{{- $x := .b.c | printf "%d" 3 -}}\nz');
    assert.deepEqual(
      items.map((i) => [i.typ, i.val, i.line]),
      [
        [ItemType.Text, 'a', 1],
        [ItemType.LeftDelim, '{{', 2],
        [ItemType.Variable, '$x', 2],
        [ItemType.Space, ' ', 2],
        [ItemType.Declare, ':=', 2],
        [ItemType.Space, ' ', 2],
        [ItemType.Field, '.b', 2],
        [ItemType.Field, '.c', 2],
        [ItemType.Space, ' ', 2],
        [ItemType.Pipe, '|', 2],
        [ItemType.Space, ' ', 2],
        [ItemType.Identifier, 'printf', 2],
        [ItemType.Space, ' ', 2],
        [ItemType.String, '"%d"', 2],
        [ItemType.Space, ' ', 2],
        [ItemType.Number, '3', 2],
        [ItemType.RightDelim, '}}', 2],
        [ItemType.Text, 'z', 3],
        [ItemType.EOF, '', 3],
      ],
    );
  });

  it('lexes keywords, numbers, chars and raw strings', () => {
    const kinds = lex(
      "{{if else end range with define template block break continue nil true 0x1F 1e3 'a' `r`}}",
    )
      .filter((i) => i.typ !== ItemType.Space)
      .map((i) => i.typ);
    assert.deepEqual(kinds, [
      ItemType.LeftDelim,
      ItemType.If,
      ItemType.Else,
      ItemType.End,
      ItemType.Range,
      ItemType.With,
      ItemType.Define,
      ItemType.Template,
      ItemType.Block,
      ItemType.Break,
      ItemType.Continue,
      ItemType.Nil,
      ItemType.Bool,
      ItemType.Number,
      ItemType.Number,
      ItemType.CharConstant,
      ItemType.RawString,
      ItemType.RightDelim,
      ItemType.EOF,
    ]);
  });

  it('reports lexical errors as error items', () => {
    const last = (s: string): string => lex(s).at(-1)?.val ?? '';
    assert.equal(last('{{"abc'), 'unterminated quoted string');
    assert.equal(last('{{ 3x }}'), 'bad number syntax: "3x"');
    assert.equal(last('{{/* x */ y}}'), 'comment ends before closing delimiter');
    assert.equal(last('{{ $a : 1 }}'), 'expected :=');
  });
});

describe('parser', () => {
  const roundTrip = (src: string): string => {
    const tree = parse('t', src, anyFunc).get('t');
    assert.ok(tree);
    return nodeString(tree.root);
  };

  it('prints trees as Go does', () => {
    assert.equal(roundTrip('{{if .a}}x{{else}}y{{end}}'), '{{if .a}}x{{else}}y{{end}}');
    assert.equal(roundTrip('{{range $i, $v := .l}}{{$v}}{{end}}'), '{{range $i, $v := .l}}{{$v}}{{end}}');
    assert.equal(roundTrip('{{with $x := (len .a)}}{{$x}}{{end}}'), '{{with $x := (len .a)}}{{$x}}{{end}}');
    assert.equal(roundTrip('{{.a | printf "%s" | len}}'), '{{.a | printf "%s" | len}}');
    assert.equal(roundTrip('{{template "x" .}}'), '{{template "x" .}}');
    assert.equal(roundTrip('{{(index .a 1).b.c}}'), '{{(index .a 1).b.c}}');
    assert.equal(roundTrip('{{if .a}}1{{else if .b}}2{{end}}'), '{{if .a}}1{{else}}{{if .b}}2{{end}}{{end}}');
  });

  it('collects define and block trees', () => {
    const trees = parse('t', '{{define "a"}}A{{end}}{{block "b" .}}B{{end}}', anyFunc);
    assert.deepEqual([...trees.keys()].sort(), ['a', 'b', 't']);
    assert.equal(
      nodeString(trees.get('t')?.root ?? { type: 'dot', pos: 0, src: { parseName: '', text: '' } }),
      '{{template "b" .}}',
    );
  });

  it('knows empty trees', () => {
    const trees = parse('t', ' \n{{/* c */}}\t{{define "a"}}x{{end}}', anyFunc);
    assert.equal(isEmptyTree(trees.get('t')?.root ?? null), true);
    assert.equal(isEmptyTree(trees.get('a')?.root ?? null), false);
  });
});
