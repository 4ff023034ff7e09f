// Label and field selectors as the apiserver reads them from `labelSelector`/`fieldSelector` query
// parameters and from metav1.LabelSelector structs, with Kubernetes' syntax, validation and messages.
import type { KubeObject } from '../store/types.js';
import { errors } from '../util/errors.js';

// ---------------------------------------------------------------------------------------------------
// Label key and value validity (apimachinery validation), reused by selectors and available to kinds.

const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_KEY_RE = new RegExp(`^${LABEL_KEY_FMT}$`);
const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/** Kubernetes' regex error wording, down to its double spaces, so clients see familiar messages. */
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  const eg = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${eg}regex used for validation is '${fmt}')`;
}

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Problems with a label key (`[prefix/]name`); empty when valid. */
export function validateLabelKey(key: string): string[] {
  const errs: string[] = [];
  const parts = key.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else {
      if (byteLength(prefix) > 253) errs.push('prefix part must be no more than 253 bytes');
      if (!DNS1123_SUBDOMAIN_RE.test(prefix)) {
        errs.push(`prefix part ${regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com')}`);
      }
    }
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push('name part must be no more than 63 bytes');
  if (!LABEL_KEY_RE.test(name)) {
    errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** Problems with a label value; empty when valid. */
export function validateLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push('must be no more than 63 bytes');
  if (!LABEL_VALUE_RE.test(value))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

/** `field: Invalid value: "v": detail`, field.Invalid's rendering. */
function invalidValue(field: string, value: unknown, detail: string): string {
  return `${field}: Invalid value: ${JSON.stringify(value ?? null)}: ${detail}`;
}

/** utilerrors.Aggregate's rendering: one message as is, several as `[a, b]` without duplicates. */
function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}

// ---------------------------------------------------------------------------------------------------
// Label selectors.

/** selection.Operator values: `exists` is a bare key, `!` a `!key`. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export type LabelMatcher = (labels: Record<string, string> | undefined) => boolean;

class SelectorError extends Error {}

/** NewRequirement's checks; returns the error messages (rendered with Kubernetes field paths). */
function requirementErrors(
  key: string,
  operator: LabelOperator,
  values: string[],
  checkKey: boolean,
): string[] {
  const errs: string[] = [];
  if (checkKey) {
    const keyErrs = validateLabelKey(key);
    if (keyErrs.length) errs.push(invalidValue('key', key, keyErrs.join('; ')));
  }
  switch (operator) {
    case 'in':
    case 'notin':
      // Go renders the empty (nil) slice as null.
      if (values.length === 0)
        errs.push(invalidValue('values', null, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1)
        errs.push(invalidValue('values', values, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0)
        errs.push(invalidValue('values', values, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1)
        errs.push(invalidValue('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(
            invalidValue(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"),
          );
        }
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = validateLabelValue(v);
    if (valueErrs.length) errs.push(invalidValue(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  return errs;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64). */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** Does one requirement hold for these labels? (Absent labels satisfy `!=` and `notin`.) */
export function requirementMatches(r: LabelRequirement, labels: Record<string, string> | undefined): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  const value = has ? labels[r.key]! : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && r.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (value === undefined || r.values.length !== 1) return false;
      const actual = parseInt64(value);
      const bound = parseInt64(r.values[0]!);
      if (actual === undefined || bound === undefined) return false;
      return r.operator === 'gt' ? actual > bound : actual < bound;
    }
  }
}

/** A matcher for requirements that must all hold; no requirements = everything matches. */
export function matcherOf(requirements: readonly LabelRequirement[]): LabelMatcher {
  return (labels) => requirements.every((r) => requirementMatches(r, labels));
}

type Tok = 'eos' | 'ident' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<';

interface Token {
  tok: Tok;
  lit: string;
}

const SPECIAL = new Set(['=', '!', '(', ')', ',', '>', '<']);
const WHITESPACE = new Set([' ', '\t', '\r', '\n']);

function lex(input: string): Token[] {
  const out: Token[] = [];
  let pos = 0;
  for (;;) {
    while (pos < input.length && WHITESPACE.has(input[pos]!)) pos++;
    if (pos >= input.length) {
      out.push({ tok: 'eos', lit: '' });
      return out;
    }
    const ch = input[pos]!;
    if (SPECIAL.has(ch)) {
      const two = input.slice(pos, pos + 2);
      const lit = two === '!=' || two === '==' ? two : ch;
      pos += lit.length;
      out.push({ tok: lit as Tok, lit });
      continue;
    }
    const start = pos;
    while (pos < input.length && !SPECIAL.has(input[pos]!) && !WHITESPACE.has(input[pos]!)) pos++;
    const lit = input.slice(start, pos);
    out.push({ tok: lit === 'in' || lit === 'notin' ? lit : 'ident', lit });
  }
}

/** labels.Parse's recursive descent, with its error messages. */
class LabelParser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  /** In value position the keywords `in`/`notin` are plain identifiers. */
  private peek(values = true): Token {
    const t = this.tokens[this.pos]!;
    return values && (t.tok === 'in' || t.tok === 'notin') ? { tok: 'ident', lit: t.lit } : t;
  }

  private next(values = true): Token {
    const t = this.peek(values);
    this.pos++;
    return t;
  }

  parse(): LabelRequirement[] {
    const out: LabelRequirement[] = [];
    for (;;) {
      const t = this.peek();
      if (t.tok === 'eos') return out;
      if (t.tok !== 'ident' && t.tok !== '!') {
        throw new SelectorError(`found '${t.lit}', expected: !, identifier, or 'end of string'`);
      }
      try {
        out.push(this.requirement());
      } catch (e) {
        if (e instanceof SelectorError) throw new SelectorError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const after = this.next();
      if (after.tok === 'eos') return out;
      if (after.tok !== ',')
        throw new SelectorError(`found '${after.lit}', expected: ',' or 'end of string'`);
      const following = this.peek();
      if (following.tok !== 'ident' && following.tok !== '!') {
        throw new SelectorError(`found '${following.lit}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let negated = false;
    let t = this.next();
    if (t.tok === '!') {
      negated = true;
      t = this.next();
    }
    if (t.tok !== 'ident') throw new SelectorError(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErrs = validateLabelKey(key);
    if (keyErrs.length) throw new SelectorError(invalidValue('<nil>', key, keyErrs.join('; ')));
    const ahead = this.peek().tok;
    if (negated || ahead === 'eos' || ahead === ',') {
      return this.build(key, negated ? '!' : 'exists', []);
    }
    const op = this.next(false);
    let operator: LabelOperator;
    switch (op.tok) {
      case 'in':
      case 'notin':
      case '=':
      case '==':
      case '!=':
        operator = op.tok;
        break;
      case '>':
        operator = 'gt';
        break;
      case '<':
        operator = 'lt';
        break;
      default:
        throw new SelectorError(`found '${op.lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
    const values = operator === 'in' || operator === 'notin' ? this.valueSet() : [this.exactValue()];
    return this.build(key, operator, values);
  }

  private build(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
    const errs = requirementErrors(key, operator, values, false);
    if (errs.length) throw new SelectorError(aggregate(errs));
    return { key, operator, values };
  }

  private exactValue(): string {
    const ahead = this.peek().tok;
    if (ahead === 'eos' || ahead === ',') return '';
    const t = this.next();
    if (t.tok !== 'ident') throw new SelectorError(`found '${t.lit}', expected: identifier`);
    return t.lit;
  }

  /** `(a, b)`; empty members (`(a,,b)`, `()`) mean the empty value. Sorted and deduplicated like a Go set. */
  private valueSet(): string[] {
    const open = this.next();
    if (open.tok !== '(') throw new SelectorError(`found '${open.lit}' expected: '('`);
    const first = this.peek();
    const values = new Set<string>();
    if (first.tok === ')') {
      this.next();
      values.add('');
    } else if (first.tok === 'ident' || first.tok === ',') {
      this.identifierList(values);
      if (this.next().tok !== ')') throw new SelectorError(`found '${first.lit}', expected: ')'`);
    } else {
      throw new SelectorError(`found '${first.lit}', expected: ',', ')' or identifier`);
    }
    return [...values].sort();
  }

  private identifierList(values: Set<string>): void {
    for (;;) {
      const t = this.next();
      if (t.tok === 'ident') {
        values.add(t.lit);
        const after = this.peek();
        if (after.tok === ',') continue;
        if (after.tok === ')') return;
        throw new SelectorError(`found '${after.lit}', expected: ',' or ')'`);
      } else if (t.tok === ',') {
        if (values.size === 0) values.add('');
        const after = this.peek().tok;
        if (after === ')') {
          values.add('');
          return;
        }
        if (after === ',') values.add('');
      } else {
        throw new SelectorError(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
  }
}

/**
 * Parses a `labelSelector` query value (`a=b,c!=d,e in (f,g),!h,i`) into requirements, all of which
 * must hold. Empty or undefined = no requirements. Invalid → 400 with Kubernetes' message.
 */
export function parseLabelRequirements(selector: string | undefined): LabelRequirement[] {
  if (!selector) return [];
  try {
    return new LabelParser(lex(selector))
      .parse()
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  } catch (e) {
    if (e instanceof SelectorError) throw errors.badRequest(e.message);
    throw e;
  }
}

/** `parseLabelRequirements` as a matcher over an object's labels. */
export function parseLabelSelector(selector: string | undefined): LabelMatcher {
  return matcherOf(parseLabelRequirements(selector));
}

export interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[] | null;
}

/** metav1.LabelSelector as found in specs (Deployment.spec.selector, PDBs, RBAC aggregation). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirementObject[] | null;
}

const NOTHING: LabelMatcher = () => false;

/**
 * metav1.LabelSelectorAsSelector: null/undefined matches nothing, `{}` matches everything; operators
 * In, NotIn, Exists, DoesNotExist. Invalid keys, values or operators → 400 with Kubernetes' message.
 */
export function labelSelectorFromObject(selector: LabelSelectorObject | null | undefined): LabelMatcher {
  if (selector === null || selector === undefined) return NOTHING;
  const requirements: LabelRequirement[] = [];
  const add = (key: string, operator: LabelOperator, values: string[]) => {
    const errs = requirementErrors(key, operator, values, true);
    if (errs.length) throw errors.badRequest(aggregate(errs));
    requirements.push({ key, operator, values });
  };
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) add(key, '=', [value]);
  for (const expr of selector.matchExpressions ?? []) {
    const operator = EXPRESSION_OPERATORS[expr.operator];
    if (!operator)
      throw errors.badRequest(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    add(expr.key, operator, [...(expr.values ?? [])]);
  }
  return matcherOf(requirements);
}

const EXPRESSION_OPERATORS: Record<string, LabelOperator | undefined> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

// ---------------------------------------------------------------------------------------------------
// Field selectors.

export interface FieldRequirement {
  field: string;
  operator: '=' | '==' | '!=';
  /** Unescaped (`\,` `\=` `\\` in the query become `,` `=` `\`). */
  value: string;
}

/** Reads a field off an object as the string a field selector compares; undefined counts as ''. */
export type FieldGetter = (obj: KubeObject) => string | undefined;

/**
 * Parses a `fieldSelector` query value: comma-separated `field=value`, `field==value`, `field!=value`
 * terms (all must hold), with `\` escaping `,`, `=` and `\` in values. Invalid → 400.
 */
export function parseFieldSelector(selector: string | undefined): FieldRequirement[] {
  if (!selector) return [];
  const out: FieldRequirement[] = [];
  for (const term of splitTerms(selector).sort()) {
    if (term === '') continue;
    const split = splitTerm(term);
    if (!split) throw errors.badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    out.push({ field: split.field, operator: split.operator, value: unescapeValue(split.value) });
  }
  return out;
}

function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** The first operator occurrence splits the term (`!=` and `==` win over `=` at the same position). */
function splitTerm(
  term: string,
): { field: string; operator: FieldRequirement['operator']; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '='] as const) {
      if (term.startsWith(op, i))
        return { field: term.slice(0, i), operator: op, value: term.slice(i + op.length) };
    }
  }
  return undefined;
}

function unescapeValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let escaped = false;
  for (const c of value) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw errors.badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      escaped = false;
    } else if (c === '\\') escaped = true;
    else if (c === ',' || c === '=') {
      // Go prints the rune with %v, i.e. its code point.
      throw errors.badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else out += c;
  }
  if (escaped) throw errors.badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

const META_FIELDS: Record<string, FieldGetter> = {
  'metadata.name': (obj) => obj.metadata.name,
  'metadata.namespace': (obj) => obj.metadata.namespace,
};

/**
 * A predicate for field requirements (or a raw `fieldSelector` string) given the kind's selectable
 * fields; `metadata.name` and `metadata.namespace` are always supported. A field the kind does not
 * support → 400 `field label not supported: <field>`, checked before anything is listed.
 */
export function fieldSelectorPredicate(
  selector: string | readonly FieldRequirement[] | undefined,
  fields: Readonly<Record<string, FieldGetter>> = {},
): (obj: KubeObject) => boolean {
  const requirements =
    typeof selector === 'string' || selector === undefined ? parseFieldSelector(selector) : selector;
  const checks = requirements.map((r) => {
    const getter = Object.hasOwn(fields, r.field)
      ? fields[r.field]
      : Object.hasOwn(META_FIELDS, r.field)
        ? META_FIELDS[r.field]
        : undefined;
    if (!getter) throw errors.badRequest(`field label not supported: ${r.field}`);
    const wantEqual = r.operator !== '!=';
    return (obj: KubeObject) => ((getter(obj) ?? '') === r.value) === wantEqual;
  });
  return (obj) => checks.every((check) => check(obj));
}
