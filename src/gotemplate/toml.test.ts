// toToml/fromToml details the helm corpus (test/gotemplate/corpus/toml.yaml) cannot easily reach:
// Go types behind the values, error ordering of the lazy lexer, odd inputs, and round trips.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fromToml, parseToml, toToml, TomlParseError } from './toml.js';
import { GoTime } from './sprig/dates.js';
import { typeNameOf } from './sprig/cast.js';
import { goInt64 as i64, goTypeName, type GoMap, type GoValue } from './value.js';

const err = (text: string): string => {
  const r = fromToml(text) as GoMap;
  assert.equal(Object.keys(r).length, 1, `expected an error for ${JSON.stringify(text)}`);
  return r['Error'] as string;
};

describe('fromToml', () => {
  test('values carry their Go types', () => {
    const d = parseToml('i = 1\nf = 1.0\ns = "x"\nb = false\nt = 1979-05-27\na = [1]\n[[aot]]\n[tbl]');
    assert.deepEqual(d['i'], i64(1n));
    assert.equal(d['f'], 1);
    assert.equal(goTypeName(d['i']), 'int64');
    assert.ok(d['t'] instanceof GoTime);
    assert.equal(goTypeName(d['t']!), 'time.Time');
    assert.equal(typeNameOf(d['a']), '[]interface {}');
    assert.equal(typeNameOf(d['aot']), '[]map[string]interface {}');
    assert.deepEqual(d['tbl'], {});
  });

  test('a key named __proto__ is an ordinary key', () => {
    const d = parseToml('__proto__ = 1\n[constructor]\nx = 2');
    assert.deepEqual(Object.keys(d).sort(), ['__proto__', 'constructor']);
    assert.equal(Object.getPrototypeOf(d), Object.prototype);
    assert.deepEqual(d['__proto__'], i64(1n));
  });

  test('the parser sees items in order: an earlier semantic error wins over a later lexing error', () => {
    assert.equal(
      err('a = 1\na = 2\nb = "\\q"'),
      `toml: line 2 (last key "a"): Key 'a' has already been defined.`,
    );
    assert.equal(
      err('b = "\\q"\na = 1\na = 2'),
      `toml: line 1 (last key "b"): invalid escape in string '\\q'`,
    );
  });

  test('errors at end of input are reported on the last line with text', () => {
    assert.equal(err('a = [\n1,\n'), `toml: line 2 (last key "a"): unexpected EOF; expected value`);
    assert.equal(err('a = "x'), `toml: line 1 (last key "a"): unexpected EOF; expected '"'`);
    // A newline the lexer has read counts already: the header's error is on line 2.
    assert.equal(err('[a\n'), `toml: line 2: expected '.' or ']' to end table name, but got '\\n' instead`);
  });

  test('CRLF line ends, a byte order mark, and a lone CR', () => {
    assert.deepEqual(parseToml('\ufeffa = """\r\nx\r\ny"""\r\nb = 1\r\n'), { a: 'x\r\ny', b: i64(1n) });
    assert.equal(
      err('a = 1\r'),
      `toml: line 1 (last key "a"): TOML files cannot contain control characters: '0x0d'`,
    );
  });

  test('NUL in the first bytes looks like UTF-16', () => {
    assert.throws(() => parseToml('a\0'), TomlParseError);
    assert.match(err('\0'), /probably using UTF-16/);
  });

  test('TOML 1.1 as BurntSushi v1.6 reads it', () => {
    const d = parseToml('t = {\n  a = 1, # c\n  b = 2,\n}\ns = "\\e\\x41"\nh = 07:32');
    assert.deepEqual(d['t'], { a: i64(1n), b: i64(2n) });
    assert.equal(d['s'], '\x1bA');
    assert.equal((d['h'] as GoTime).format(), '0000-01-01 07:32:00 +0000 time-local');
  });

  test('deep nesting', () => {
    const depth = 300;
    const d = parseToml(`a = ${'['.repeat(depth)}1${']'.repeat(depth)}`);
    let v: GoValue = d['a']!;
    for (let i = 0; i < depth; i++) v = (v as GoValue[])[0]!;
    assert.deepEqual(v, i64(1n));
    const keys = Array.from({ length: 200 }, (_, i) => `k${i}`);
    const t = parseToml(`[${keys.join('.')}]\nx = 1`);
    let m: GoValue = t;
    for (const k of keys) m = (m as GoMap)[k]!;
    assert.deepEqual(m, { x: i64(1n) });
  });

  test('large documents parse quickly', () => {
    const lines = Array.from({ length: 20000 }, (_, i) => `[t${i}]\nk = "v${i}"\nn = [${i}, ${i}.5]`);
    const start = Date.now();
    const d = parseToml(lines.join('\n'));
    assert.equal(Object.keys(d).length, 20000);
    assert.ok(Date.now() - start < 5000);
  });
});

describe('toToml', () => {
  test('keys sort by UTF-8 bytes, as Go sorts strings', () => {
    // U+FF01 sorts after U+1F600 in UTF-16 code units (a surrogate pair) but before it in UTF-8.
    assert.equal(toToml({ '\u{1F600}': 1n, '\uFF01': 2n }), '"\uFF01" = 2\n"\u{1F600}" = 1\n');
  });

  test('nil at the top fails the call; nil inside is skipped or refused', () => {
    assert.throws(() => toToml(null), /reflect: call of reflect.Value.Type on zero Value/);
    assert.equal(toToml({ a: null, b: [{ c: null }, 1n] }), 'b = [{}, 1]\n');
    assert.equal(toToml({ a: [[1n, null]] }), 'toml: cannot encode array with nil element');
  });

  test('local datetimes, dates and times are written back without an offset', () => {
    const d = parseToml(
      'a = 1979-05-27T07:32:00.5\nb = 1979-05-27\nc = 07:32:00\nd = 1979-05-27T07:32:00-01:00',
    );
    assert.equal(
      toToml(d),
      'a = 1979-05-27T07:32:00.5\nb = 1979-05-27\nc = 07:32:00\nd = 1979-05-27T07:32:00-01:00\n',
    );
  });

  test('round trips documents of plain values', () => {
    const doc: GoMap = {
      s: 'a"b\\c\n\u0001é',
      i: i64(-9223372036854775808n),
      f: 0.1,
      w: 3,
      e: 1e300,
      b: true,
      l: [i64(1n), 'x', [2.5, {}]],
      t: { 'k k': { deep: [{ x: i64(1n) }, { y: [{ z: 'q' }] }] } },
    };
    assert.deepEqual(parseToml(toToml(doc)), doc);
  });
});
