// Test helper: evaluates the tiny template subset the oracle tables use ({{ fn arg… | fn … }}) without the real executor.
// Lets fmt/yaml/json be checked against helm's output before the parser and executor exist.

import { readFileSync } from 'node:fs';
import { formatValue, sprint, sprintf, sprintln } from '../fmt.js';
import { fromJson, fromJsonArray, toJson, toPrettyJson, toRawJson } from '../json.js';
import { fromYaml, fromYamlArray, toYaml, toYamlPretty } from '../yaml.js';
import type { GoMap, GoValue } from '../value.js';

/** One oracle case: the template placed in a chart, its values.yaml, and what `helm template` rendered. */
export interface OracleCase {
  template: string;
  values?: string;
  expected?: string;
  /** helm failed; the message (without helm's "Error: " prefix). */
  error?: string;
}

export function loadCases(name: string): OracleCase[] {
  const url = new URL(`../../../../src/gotemplate/testdata/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as OracleCase[];
}

const funcs: Record<string, (args: GoValue[]) => GoValue> = {
  printf: (a) => sprintf(a[0] as string, a.slice(1)),
  print: (a) => sprint(a),
  println: (a) => sprintln(a),
  toYaml: (a) => toYaml(a[0] ?? null),
  toYamlPretty: (a) => toYamlPretty(a[0] ?? null),
  toJson: (a) => toJson(a[0] ?? null),
  toPrettyJson: (a) => toPrettyJson(a[0] ?? null),
  toRawJson: (a) => toRawJson(a[0] ?? null),
  fromYaml: (a) => fromYaml(a[0] as string),
  fromYamlArray: (a) => fromYamlArray(a[0] as string),
  fromJson: (a) => fromJson(a[0] as string),
  fromJsonArray: (a) => fromJsonArray(a[0] as string),
  list: (a) => a,
  dict: (a) => {
    const m: GoMap = {};
    for (let i = 0; i < a.length; i += 2) {
      const k = a[i] ?? null;
      m[typeof k === 'string' ? k : formatValue(k)] = a[i + 1] ?? null;
    }
    return m;
  },
};

function unquoteGo(s: string): string {
  let out = '';
  for (let i = 1; i < s.length - 1; i++) {
    const c = s[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = s[++i]!;
    const simple: Record<string, string> = {
      n: '\n',
      t: '\t',
      r: '\r',
      a: '\x07',
      b: '\b',
      f: '\f',
      v: '\v',
      '\\': '\\',
      '"': '"',
    };
    if (n in simple) out += simple[n];
    else if (n === 'x') {
      out += String.fromCharCode(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (n === 'u') {
      out += String.fromCodePoint(parseInt(s.slice(i + 1, i + 5), 16));
      i += 4;
    } else if (n === 'U') {
      out += String.fromCodePoint(parseInt(s.slice(i + 1, i + 9), 16));
      i += 8;
    } else throw new Error(`escape \\${n}`);
  }
  return out;
}

function tokenize(src: string): string[] {
  const toks: string[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      toks.push(src.slice(i, j + 1));
      i = j + 1;
    } else if (c === '`') {
      const j = src.indexOf('`', i + 1);
      toks.push(src.slice(i, j + 1));
      i = j + 1;
    } else if (c === '|') {
      toks.push('|');
      i++;
    } else {
      let j = i;
      while (j < src.length && !' \t\n|'.includes(src[j]!)) j++;
      toks.push(src.slice(i, j));
      i = j;
    }
  }
  return toks;
}

function operand(tok: string, values: GoMap): GoValue {
  if (tok.startsWith('"')) return unquoteGo(tok);
  if (tok.startsWith('`')) return tok.slice(1, -1);
  if (tok === 'nil') return null;
  if (tok === 'true') return true;
  if (tok === 'false') return false;
  if (/^[-+]?(0x[0-9a-fA-F]+|\d+)$/.test(tok)) return BigInt(tok.replace('+', ''));
  if (tok.startsWith('.') && !/^\.\d/.test(tok)) {
    let v: GoValue = { Values: values };
    for (const part of tok.split('.').slice(1)) {
      if (part === '') continue;
      v = v !== null && typeof v === 'object' && !Array.isArray(v) ? ((v as GoMap)[part] ?? null) : null;
    }
    return v;
  }
  if (/^[-+]?[\d.]/.test(tok)) return Number(tok);
  throw new Error(`operand ${tok}`);
}

function evalAction(src: string, values: GoMap): GoValue {
  const toks = tokenize(src);
  const cmds: string[][] = [[]];
  for (const t of toks) {
    if (t === '|') cmds.push([]);
    else cmds[cmds.length - 1]!.push(t);
  }
  let prev: GoValue | undefined;
  for (const cmd of cmds) {
    const [head, ...rest] = cmd;
    const fn = head === undefined ? undefined : funcs[head];
    if (fn) {
      const args = rest.map((t) => operand(t, values));
      if (prev !== undefined) args.push(prev);
      prev = fn(args);
    } else {
      prev = operand(head!, values);
    }
  }
  return prev ?? null;
}

/** Render a case's template with the subset evaluator; helm's `<no value>` blanking included. */
export function renderMini(c: OracleCase): string {
  const parsed = c.values ? fromYaml(c.values) : {};
  const values =
    parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as GoMap) : {};
  let out = '';
  let i = 0;
  while (i < c.template.length) {
    const open = c.template.indexOf('{{', i);
    if (open < 0) {
      out += c.template.slice(i);
      break;
    }
    out += c.template.slice(i, open);
    let close = open + 2;
    // Skip over quoted strings, which may contain "}}".
    while (close < c.template.length && !c.template.startsWith('}}', close)) {
      const ch = c.template[close];
      if (ch === '"') {
        close++;
        while (c.template[close] !== '"') close += c.template[close] === '\\' ? 2 : 1;
      } else if (ch === '`') close = c.template.indexOf('`', close + 1);
      close++;
    }
    const v = evalAction(c.template.slice(open + 2, close), values);
    out += v === null ? '<no value>' : typeof v === 'string' ? v : formatValue(v);
    i = close + 2;
  }
  return out.replaceAll('<no value>', '');
}
