// Table tests for the Go template engine: template text → output or Go's error text, as Go 1.25
// documents and as helm 4.1.4 (the oracle) shows; helm-specific cases use missingKey 'zero'.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TemplateSet, parseTemplate, withSignature, type TemplateOptions } from './template.js';
import type { GoMap, GoValue } from './value.js';

const data: GoMap = {
  str: 'hello',
  empty: '',
  zero: 0,
  one: 1,
  f: 1.5,
  big: 1000000,
  t: true,
  no: false,
  nil: null,
  list: ['a', 'b', 'c'],
  nums: [3n, 1n, 2n],
  emptyList: [],
  map: { b: 2, a: 1, c: 3 },
  emptyMap: {},
  nested: { a: { b: { c: 'deep' } } },
  html: '<a href="x">&\'</a>',
  fn: ((a: GoValue, b: GoValue) => `${String(a)}+${String(b)}`) as GoValue,
};

type Case = [name: string, tmpl: string, want: string | { error: string }, opts?: TemplateOptions];

const cases: Case[] = [
  // Text, comments and trimming.
  ['text', 'plain text', 'plain text'],
  ['comment', 'a{{/* c */}}b', 'ab'],
  ['comment trim', 'a  {{- /* c */ -}}  b', 'ab'],
  ['trim left', 'a \n {{- .str}}', 'ahello'],
  ['trim right', '{{.str -}} \n b', 'hellob'],
  ['trim both', 'x\n\t{{- 3 -}}\n\ty', 'x3y'],
  ['minus number not trim', '{{-3}}', '-3'],
  ['multiline action', '{{ .str\n}}', 'hello'],
  // Literals.
  ['string', '{{"a\\tb"}}', 'a\tb'],
  ['raw string', '{{`a\\tb`}}', 'a\\tb'],
  ['int', '{{42}}', '42'],
  ['negative', '{{-7}}', '-7'],
  ['hex', '{{0x1F}}', '31'],
  ['octal', '{{017}}', '15'],
  ['0o octal', '{{0o17}}', '15'],
  ['binary', '{{0b101}}', '5'],
  ['underscore', '{{1_000_000}}', '1000000'],
  ['float', '{{1.5}}', '1.5'],
  ['exp float', '{{1e3}}', '1000'],
  ['big exp float', '{{1e21}}', '1e+21'],
  ['hex float', '{{0x1p4}}', '16'],
  ['char', "{{'a'}}", '97'],
  ['char escape', "{{'\\n'}}", '10'],
  ['bool', '{{true}} {{false}}', 'true false'],
  ['dot', '{{.}}', 'x', {}],
  // Fields.
  ['field', '{{.str}}', 'hello'],
  ['nested field', '{{.nested.a.b.c}}', 'deep'],
  ['missing key default', '{{.missing}}', '<no value>'],
  ['missing chain default', '{{.missing.x.y}}', '<no value>'],
  ['missing key zero', '{{.missing}}', '<no value>', { missingKey: 'zero' }],
  [
    'missing chain zero',
    '{{.missing.x}}',
    { error: 'template: t:1:10: executing "t" at <.missing.x>: nil pointer evaluating interface {}.x' },
    { missingKey: 'zero' },
  ],
  [
    'missing key error',
    '{{.missing}}',
    { error: 'template: t:1:2: executing "t" at <.missing>: map has no entry for key "missing"' },
    { missingKey: 'error' },
  ],
  ['nil value prints no value', '{{.nil}}', '<no value>'],
  [
    'nil pointer',
    '{{.nil.x}}',
    { error: 'template: t:1:6: executing "t" at <.nil.x>: nil pointer evaluating interface {}.x' },
  ],
  [
    'field of string',
    '{{.str.x}}',
    { error: 'template: t:1:6: executing "t" at <.str.x>: can\'t evaluate field x in type interface {}' },
  ],
  [
    'field of list',
    '{{.list.x}}',
    { error: 'template: t:1:7: executing "t" at <.list.x>: can\'t evaluate field x in type interface {}' },
  ],
  ['chain on pipe', '{{(.nested.a).b.c}}', 'deep'],
  ['variable field', '{{$n := .nested}}{{$n.a.b.c}}', 'deep'],
  ['map print', '{{.map}}', 'map[a:1 b:2 c:3]'],
  ['list print', '{{.list}}', '[a b c]'],
  ['float print', '{{.big}}', '1e+06'],
  ['float print 2', '{{.f}}', '1.5'],
  // Variables.
  ['declare', '{{$x := 1}}{{$x}}', '1'],
  ['assign', '{{$x := 1}}{{$x = 2}}{{$x}}', '2'],
  ['root var', '{{with .nested}}{{$.str}}{{end}}', 'hello'],
  ['scope', '{{$x := 1}}{{if true}}{{$x := 2}}{{$x}}{{end}}{{$x}}', '21'],
  ['assign in if persists', '{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}}', '2'],
  ['undefined var', '{{$y}}', { error: 'template: t:1: undefined variable "$y"' }],
  [
    'var out of scope',
    '{{if true}}{{$x := 1}}{{end}}{{$x}}',
    { error: 'template: t:1: undefined variable "$x"' },
  ],
  // if / else.
  ['if true', '{{if .t}}y{{end}}', 'y'],
  ['if false', '{{if .no}}y{{else}}n{{end}}', 'n'],
  ['if empty string', '{{if .empty}}y{{else}}n{{end}}', 'n'],
  ['if zero float', '{{if .zero}}y{{else}}n{{end}}', 'n'],
  ['if empty list', '{{if .emptyList}}y{{else}}n{{end}}', 'n'],
  ['if empty map', '{{if .emptyMap}}y{{else}}n{{end}}', 'n'],
  ['if nil', '{{if .nil}}y{{else}}n{{end}}', 'n'],
  ['if missing', '{{if .missing}}y{{else}}n{{end}}', 'n'],
  ['else if', '{{if .no}}1{{else if .t}}2{{else}}3{{end}}', '2'],
  ['else if chain', '{{if .no}}1{{else if .zero}}2{{else if .empty}}3{{else}}4{{end}}', '4'],
  // with.
  ['with', '{{with .nested.a}}{{.b.c}}{{end}}', 'deep'],
  ['with else', '{{with .empty}}x{{else}}{{.str}}{{end}}', 'hello'],
  ['else with', '{{with .empty}}x{{else with .str}}{{.}}{{end}}', 'hello'],
  ['with var', '{{with $x := .str}}{{$x}}{{end}}', 'hello'],
  // range.
  ['range list', '{{range .list}}[{{.}}]{{end}}', '[a][b][c]'],
  ['range index', '{{range $i, $v := .list}}{{$i}}={{$v}} {{end}}', '0=a 1=b 2=c '],
  ['range map sorted', '{{range $k, $v := .map}}{{$k}}{{$v}}{{end}}', 'a1b2c3'],
  ['range one var', '{{range $v := .list}}{{$v}}{{end}}', 'abc'],
  ['range else', '{{range .emptyList}}x{{else}}empty{{end}}', 'empty'],
  ['range nil', '{{range .missing}}x{{else}}none{{end}}', 'none'],
  ['range int', '{{range 3}}{{.}}{{end}}', '012'],
  ['range int var', '{{range $i := 3}}{{$i}}{{end}}', '012'],
  [
    'range int two vars',
    '{{range $i, $v := 3}}{{end}}',
    { error: 'template: t:1:18: executing "t" at <3>: can\'t use 3 to iterate over more than one variable' },
  ],
  [
    'range float',
    '{{range .f}}{{end}}',
    { error: 'template: t:1:8: executing "t" at <.f>: range can\'t iterate over 1.5' },
  ],
  ['break', '{{range .list}}{{if eq . "b"}}{{break}}{{end}}{{.}}{{end}}', 'a'],
  ['continue', '{{range .list}}{{if eq . "b"}}{{continue}}{{end}}{{.}}{{end}}', 'ac'],
  ['break outside', '{{break}}', { error: 'template: t:1: {{break}} outside {{range}}' }],
  ['range dollar', '{{range .list}}{{$.str}}{{end}}', 'hellohellohello'],
  ['range assign', '{{$x := ""}}{{range .list}}{{$x = .}}{{end}}{{$x}}', 'c'],
  ['range assign vars', '{{$i := 0}}{{$v := ""}}{{range $i, $v = .list}}{{end}}{{$i}}{{$v}}', '2c'],
  // define / template / block.
  ['define', '{{define "x"}}X{{.}}{{end}}{{template "x" 1}}', 'X1'],
  ['template no data', '{{define "x"}}[{{.}}]{{end}}{{template "x"}}', '[<no value>]'],
  ['block', '{{block "b" .str}}<{{.}}>{{end}}', '<hello>'],
  [
    'template vars not inherited',
    '{{$x := 1}}{{define "y"}}{{$x}}{{end}}',
    { error: 'template: t:1: undefined variable "$x"' },
  ],
  [
    'template undefined',
    '{{template "nope"}}',
    { error: 'template: t:1:11: executing "t" at <{{template "nope"}}>: template "nope" not defined' },
  ],
  ['template dollar', '{{define "x"}}{{$}}{{end}}{{template "x" .str}}', 'hello'],
  // Functions and pipelines.
  ['pipeline', '{{.str | printf "%s!"}}', 'hello!'],
  ['pipeline chain', '{{1 | print 2 | printf "%s."}}', '2 1.'],
  ['parens', '{{printf "%d-%d" (len .list) 5}}', '3-5'],
  ['print', '{{print 1 2 "a" "b" 3}}', '1 2ab3'],
  ['print nil', '{{print .missing}}', '<nil>'],
  ['println', '{{println 1 "a"}}', '1 a\n'],
  ['printf v', '{{printf "%v %q %5.2f %d" .list "x" 3.14159 7}}', '[a b c] "x"  3.14 7'],
  ['printf float', '{{printf "%d" .one}}', '%!d(float64=1)'],
  ['len', '{{len .list}} {{len .map}} {{len "héllo"}}', '3 3 6'],
  [
    'len nil',
    '{{len .nil}}',
    { error: 'template: t:1:2: executing "t" at <len .nil>: error calling len: len of nil pointer' },
  ],
  [
    'len int',
    '{{len 3}}',
    { error: 'template: t:1:2: executing "t" at <len 3>: error calling len: len of type int' },
  ],
  ['index list', '{{index .list 1}}', 'b'],
  ['index map', '{{index .map "b"}}', '2'],
  ['index nested', '{{index .nested "a" "b" "c"}}', 'deep'],
  ['index missing map key', '{{index .map "z"}}', '<no value>'],
  [
    'index out of range',
    '{{index .list 5}}',
    {
      error: 'template: t:1:2: executing "t" at <index .list 5>: error calling index: index out of range: 5',
    },
  ],
  [
    'index at len',
    '{{index .list 3}}',
    {
      error:
        'template: t:1:2: executing "t" at <index .list 3>: error calling index: reflect: slice index out of range',
    },
  ],
  [
    'index nil',
    '{{index .missing 1}}',
    {
      error:
        'template: t:1:2: executing "t" at <index .missing 1>: error calling index: index of untyped nil',
    },
  ],
  ['index no args', '{{index .list}}', '[a b c]'],
  ['index string', '{{index "abc" 1}}', '98'],
  [
    'index map with int',
    '{{index .map 1}}',
    {
      error:
        'template: t:1:2: executing "t" at <index .map 1>: error calling index: value has type int; should be string',
    },
  ],
  ['slice', '{{slice .list 1}} {{slice .list 1 2}} {{slice "hello" 1 3}}', '[b c] [b] el'],
  [
    'slice bad',
    '{{slice .list 2 1}}',
    {
      error:
        'template: t:1:2: executing "t" at <slice .list 2 1>: error calling slice: invalid slice index: 2 > 1',
    },
  ],
  ['and', '{{and 1 0 2}} {{and 1 2}}', '0 2'],
  ['or', '{{or 0 "" "x" 2}} {{or 0 ""}}', 'x '],
  ['and short circuit', '{{and false (index .list 9)}}', 'false'],
  ['or short circuit', '{{or true (index .list 9)}}', 'true'],
  ['and pipeline', '{{1 | and 2}}', '1'],
  ['not', '{{not 0}} {{not .str}}', 'true false'],
  ['eq', '{{eq 1 1}} {{eq "a" "b"}} {{eq 1 2 3 1}}', 'true false true'],
  [
    'eq float int',
    '{{eq .one 1}}',
    {
      error:
        'template: t:1:2: executing "t" at <eq .one 1>: error calling eq: incompatible types for comparison: float64 and int',
    },
  ],
  ['eq float', '{{eq .one 1.0}}', 'true'],
  ['eq nil', '{{eq .nil nil}} {{eq .missing "x"}}', 'true false'],
  ['ne', '{{ne 1 2}} {{ne "a" "a"}}', 'true false'],
  ['lt', '{{lt 1 2}} {{lt "b" "a"}} {{lt 1.5 2.5}}', 'true false true'],
  ['le ge gt', '{{le 2 2}} {{ge 1 2}} {{gt 3 2}}', 'true false true'],
  [
    'lt bool',
    '{{lt true false}}',
    {
      error:
        'template: t:1:2: executing "t" at <lt true false>: error calling lt: invalid type for comparison',
    },
  ],
  [
    'lt nil',
    '{{lt .nil 1}}',
    { error: 'template: t:1:2: executing "t" at <lt .nil 1>: error calling lt: invalid type for comparison' },
  ],
  [
    'ne wrong arity',
    '{{ne 1}}',
    { error: 'template: t:1:2: executing "t" at <ne>: wrong number of args for ne: want 2 got 1' },
  ],
  ['html', '{{html .html}}', '&lt;a href=&#34;x&#34;&gt;&amp;&#39;&lt;/a&gt;'],
  ['html nil', '{{html .missing}}', '&lt;no value&gt;'],
  ['js', `{{js "<a&b='c'>"}}`, "\\u003Ca\\u0026b\\u003D\\'c\\'\\u003E"],
  ['urlquery', '{{urlquery "a b&c=d/é"}}', 'a+b%26c%3Dd%2F%C3%A9'],
  ['call', '{{call .fn 1 "x"}}', '1+x'],
  [
    'call nonfunc',
    '{{call .str}}',
    {
      error:
        'template: t:1:2: executing "t" at <call .str>: error calling call: non-function .str of type string',
    },
  ],
  ['user func', '{{up "a"}}', 'A', { funcs: { up: (s: GoValue) => String(s).toUpperCase() } }],
  [
    'user func error',
    '{{boom}}',
    { error: 'template: t:1:2: executing "t" at <boom>: error calling boom: bad' },
    {
      funcs: {
        boom: () => {
          throw new Error('bad');
        },
      },
    },
  ],
  ['user func pipeline', '{{"a" | up}}', 'A', { funcs: { up: (s: GoValue) => String(s).toUpperCase() } }],
  // Parse errors.
  ['unknown function', '{{nope}}', { error: 'template: t:1: function "nope" not defined' }],
  ['unexpected brace', '{{3}', { error: 'template: t:1: unexpected "}" in operand' }],
  ['bad character', '{{.str}', { error: "template: t:1: bad character U+007D '}'" }],
  ['unclosed action', '{{.str', { error: 'template: t:1: unclosed action' }],
  ['unexpected EOF', '{{if true}}x', { error: 'template: t:1: unexpected EOF' }],
  ['unexpected end', '{{end}}', { error: 'template: t:1: unexpected {{end}}' }],
  ['missing value', '{{if}}{{end}}', { error: 'template: t:1: missing value for if' }],
  ['unclosed comment', '{{/* x', { error: 'template: t:1: unclosed comment' }],
  ['bad number', '{{3k}}', { error: 'template: t:1: bad number syntax: "3k"' }],
  ['non executable', '{{1 | 2}}', { error: 'template: t:1: non executable command in pipeline stage 2' }],
  [
    'line numbers',
    'a\nb\n{{.x | 3}}',
    { error: 'template: t:3: non executable command in pipeline stage 2' },
  ],
  ['trailing pipe', '{{.str | }}', 'hello'],
  [
    'eq map int',
    '{{eq .map 1}}',
    {
      error:
        'template: t:1:2: executing "t" at <eq .map 1>: error calling eq: incompatible types for comparison: map[string]interface {} and int',
    },
  ],
  [
    'lt int float',
    '{{lt 1 2.0}}',
    {
      error:
        'template: t:1:2: executing "t" at <lt 1 2.0>: error calling lt: incompatible types for comparison: int and float64',
    },
  ],
  [
    'field of int chain',
    '{{(1).x}}',
    { error: 'template: t:1:3: executing "t" at <1>: can\'t evaluate field x in type int' },
  ],
  [
    'arg to literal',
    '{{"a" "b"}}',
    { error: 'template: t:1:2: executing "t" at <"a">: can\'t give argument to non-function "a"' },
  ],
  ['printf missing', '{{printf "%d %s" 1}}', '1 %!s(MISSING)'],
  [
    'printf non-string',
    '{{printf 3}}',
    { error: 'template: t:1:9: executing "t" at <3>: expected string; found 3' },
  ],
  [
    'printf float format',
    '{{printf .f}}',
    { error: 'template: t:1:9: executing "t" at <.f>: wrong type for value; expected string; got float64' },
  ],
  [
    'not no args',
    '{{not}}',
    { error: 'template: t:1:2: executing "t" at <not>: wrong number of args for not: want 1 got 0' },
  ],
  [
    'len nil literal',
    '{{len nil}}',
    {
      error:
        'template: t:1:2: executing "t" at <len nil>: error calling len: reflect: call of reflect.Value.Type on zero Value',
    },
  ],
  [
    'index list with string',
    '{{index .list "a"}}',
    {
      error:
        'template: t:1:2: executing "t" at <index .list "a">: error calling index: cannot index slice/array with type string',
    },
  ],
  [
    'call nil',
    '{{call nil}}',
    { error: 'template: t:1:2: executing "t" at <call nil>: error calling call: call of nil' },
  ],
  [
    'too many decl range',
    '{{range $a, $b, $c := .list}}{{end}}',
    { error: 'template: t:1: too many declarations in range' },
  ],
  [
    'double else',
    '{{if 1}}{{else}}{{else}}{{end}}',
    { error: 'template: t:1: expected end; found {{else}}' },
  ],
  ['unexpected else', '{{else}}', { error: 'template: t:1: unexpected {{else}}' }],
  [
    'integer overflow',
    '{{99999999999999999999}}',
    { error: 'template: t:1: integer overflow: "99999999999999999999"' },
  ],
  ['malformed char', "{{'ab'}}", { error: "template: t:1: malformed character constant: 'ab'" }],
  ['unexpected right paren', '{{ ) }}', { error: 'template: t:1: unexpected right paren' }],
  ['unclosed left paren', '{{ ( }}', { error: 'template: t:1: unclosed left paren' }],
  [
    'range elem field',
    '{{range .list}}{{.x}}{{end}}',
    { error: 'template: t:1:17: executing "t" at <.x>: can\'t evaluate field x in type interface {}' },
  ],
  [
    'range var field',
    '{{range $k, $v := .map}}{{$v.x}}{{end}}',
    { error: 'template: t:1:28: executing "t" at <$v.x>: can\'t evaluate field x in type interface {}' },
    { missingKey: 'zero' },
  ],
  [
    'nil data error mode',
    '{{with .nested}}{{.nope.x}}{{end}}',
    { error: 'template: t:1:23: executing "t" at <.nope.x>: map has no entry for key "nope"' },
    { missingKey: 'error' },
  ],
  [
    'assign undefined',
    '{{$x = 1}}',
    { error: 'template: t:1:7: executing "t" at <1>: undefined variable: $x' },
  ],
  [
    'multiple definition',
    '{{define "a"}}x{{end}}{{define "a"}}y{{end}}',
    { error: 'template: t:1: template: multiple definition of template "a"' },
  ],
  [
    'define in action',
    '{{if 1}}{{define "a"}}{{end}}{{end}}',
    { error: 'template: t:1: unexpected <define> in command' },
  ],
  [
    'dot args',
    '{{. .}}',
    { error: 'template: t:1:2: executing "t" at <.>: can\'t give argument to non-function .' },
  ],
  ['bad escape', '{{"\\z"}}', { error: 'template: t:1: invalid syntax' }],
  ['nil command', '{{nil}}', { error: 'template: t:1:2: executing "t" at <nil>: nil is not a command' }],
  [
    'exec error line col',
    'line1\n  {{.nil.x}}',
    { error: 'template: t:2:8: executing "t" at <.nil.x>: nil pointer evaluating interface {}.x' },
  ],
  [
    'arg to non-function',
    '{{.str 1}}',
    { error: 'template: t:1:2: executing "t" at <.str>: str is not a method but has arguments' },
  ],
  ['unterminated string', '{{"abc}}', { error: 'template: t:1: unterminated quoted string' }],
  [
    'range two decl in if',
    '{{if $a, $b := 1}}{{end}}',
    { error: 'template: t:1: too many declarations in if' },
  ],
];

describe('go text/template', () => {
  for (const [name, tmpl, want, opts] of cases) {
    it(name, () => {
      const run = (): string => parseTemplate('t', tmpl, opts).execute('t', name === 'dot' ? 'x' : data);
      if (typeof want === 'string') assert.equal(run(), want);
      else
        assert.throws(run, (e: Error) => {
          assert.equal(e.message, want.error);
          return true;
        });
    });
  }

  it('compiles once and executes many times', () => {
    const t = parseTemplate('t', '{{.a}}-{{range .l}}{{.}}{{end}}');
    assert.equal(t.execute('t', { a: 'x', l: [1n, 2n] }), 'x-12');
    assert.equal(t.execute('t', { a: 'y', l: [] }), 'y-');
  });

  it('shares defines across texts of one set and lets later texts redefine them', () => {
    const set = new TemplateSet();
    set.parse('helpers', '{{define "name"}}N:{{.}}{{end}}');
    set.parse('main', '{{template "name" "x"}}');
    assert.equal(set.execute('main', null), 'N:x');
    set.parse('helpers2', '{{define "name"}}M:{{.}}{{end}}');
    assert.equal(set.execute('main', null), 'M:x');
    assert.throws(() => set.execute('nope', null), /no template "nope" associated with template "helpers"/);
  });

  it('supports include and tpl through functions bound to the set', () => {
    const set = new TemplateSet({ missingKey: 'zero' });
    set.addFuncs({
      include: function (this: TemplateSet, name: GoValue, d: GoValue) {
        return this.execute(String(name), d);
      },
      tpl: function (this: TemplateSet, text: GoValue, d: GoValue) {
        return this.executeString('t', String(text), d);
      },
    });
    set.parse('h', '{{define "greet"}}hi {{.}}{{end}}');
    set.parse(
      't',
      '{{include "greet" .n | printf "%s!"}} {{tpl "{{define \\"z\\"}}Z{{end}}{{include \\"z\\" .}}{{.n}}" .}}',
    );
    assert.equal(set.execute('t', { n: 'bob' }), 'hi bob! Zbob');
    assert.equal(set.lookup('z'), undefined);
    // Errors from a nested execution come back wrapped, as Go wraps a function's error.
    set.parse('bad', '{{define "b"}}{{.x.y}}{{end}}{{include "b" .}}');
    assert.throws(
      () => set.execute('bad', { x: null }),
      (e: Error) =>
        e.message ===
        'template: bad:1:31: executing "bad" at <include "b" .>: error calling include: template: bad:1:18: executing "b" at <.x.y>: nil pointer evaluating interface {}.y',
    );
  });

  it('counts error columns in bytes, as Go does', () => {
    const t = parseTemplate('t', 'é {{.a.b}}');
    assert.throws(() => t.execute('t', { a: null }), /^TemplateExecError: template: t:1:7: /);
  });

  it('reaches fields and methods of Go objects', () => {
    const files = {
      goType: 'files.Files',
      format: () => 'files',
      getMethod: (name: string) => (name === 'Get' ? (p: GoValue) => `content of ${String(p)}` : undefined),
      getField: (name: string) => (name === 'Count' ? 2n : undefined),
    };
    const t = parseTemplate('t', '{{.Files.Get "a.txt"}} {{.Files.Count}} {{"b" | .Files.Get}}');
    assert.equal(t.execute('t', { Files: files }), 'content of a.txt 2 content of b');
    assert.throws(
      () => parseTemplate('t', '{{.Files.Nope}}').execute('t', { Files: files }),
      (e: Error) =>
        e.message ===
        'template: t:1:8: executing "t" at <.Files.Nope>: can\'t evaluate field Nope in type interface {}',
    );
  });

  it('overrides the missing-key mode per execution and clones sets', () => {
    const set = parseTemplate('t', '{{.a}}');
    assert.equal(set.execute('t', {}), '<no value>');
    assert.throws(() => set.execute('t', {}, { missingKey: 'error' }), /map has no entry for key "a"/);
    const c = set.clone().parse('u', 'U');
    assert.equal(c.execute('t', { a: 1n }), '1');
    assert.equal(set.lookup('u'), undefined);
  });

  it('checks arguments of functions with a Go signature as Go does', () => {
    const upper = withSignature((s: GoValue) => String(s).toUpperCase(), { params: ['string'] });
    const repeat = withSignature((n: GoValue, s: GoValue) => String(s).repeat(Number(n)), {
      params: ['int', 'string'],
    });
    const half = withSignature((f: GoValue) => Number(f) / 2, { params: ['float64'] });
    const join = withSignature((sep: GoValue, ...xs: GoValue[]) => xs.join(String(sep)), {
      params: ['string'],
      variadic: 'interface {}',
    });
    const opts = { funcs: { upper, repeat, half, join } };
    const run = (t: string): string => {
      try {
        return parseTemplate('t', t, opts).execute('t', { i: 3n, f: 1.5, s: 'x' });
      } catch (e) {
        return (e as Error).message;
      }
    };
    assert.equal(run('{{upper "a"}} {{repeat 2 .s}} {{half 3}} {{join "-" 1 2}}'), 'A xx 1.5 1-2');
    assert.equal(run('{{upper 3}}'), 'template: t:1:8: executing "t" at <3>: expected string; found 3');
    assert.equal(
      run('{{3 | upper}}'),
      'template: t:1:6: executing "t" at <upper>: wrong type for value; expected string; got int',
    );
    assert.equal(
      run('{{upper 1 2}}'),
      'template: t:1:2: executing "t" at <upper>: wrong number of args for upper: want 1 got 2',
    );
    assert.equal(
      run('{{repeat .f "x"}}'),
      'template: t:1:9: executing "t" at <.f>: wrong type for value; expected int; got float64',
    );
    assert.equal(
      run('{{join}}'),
      'template: t:1:2: executing "t" at <join>: wrong number of args for join: want at least 1 got 0',
    );
    assert.equal(
      run('{{upper nil}}'),
      'template: t:1:8: executing "t" at <nil>: cannot assign nil to string',
    );
    assert.equal(
      run('{{upper .nope}}'),
      'template: t:1:8: executing "t" at <.nope>: invalid value; expected string',
    );
  });

  it('uses custom delimiters', () => {
    const t = parseTemplate('t', '[[ .a ]] {{.a}}', { leftDelim: '[[', rightDelim: ']]' });
    assert.equal(t.execute('t', { a: 1n }), '1 {{.a}}');
  });

  it('reports errors inside defined templates with the file name and the template name', () => {
    const t = parseTemplate('file', 'x\n{{define "d"}}\n  {{.a.b}}{{end}}{{template "d" .}}');
    assert.throws(
      () => t.execute('file', { a: null }),
      (e: Error) =>
        e.message === 'template: file:3:6: executing "d" at <.a.b>: nil pointer evaluating interface {}.b',
    );
  });
});
