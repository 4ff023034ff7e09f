// The subset of Kubernetes JSONPath that printer columns use (`.a.b`, `.a[0]`, `.a[*].b`, `..b`,
// `['k']`, `[1:3]`, `[?(@.type=="Ready")]`, optional `{ }`), compiled once and evaluated to values.

type Segment =
  | { kind: 'field'; name: string }
  | { kind: 'wildcard' }
  | { kind: 'recursive'; name: string | undefined }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start: number | undefined; end: number | undefined; step: number | undefined }
  | { kind: 'filter'; filter: Filter };

type Operand =
  { kind: 'path'; segments: Segment[] } | { kind: 'literal'; value: string | number | boolean | null };

interface Filter {
  left: Operand;
  /** Absent: an existence test, `[?(@.status)]`. */
  op?: '==' | '!=' | '<' | '<=' | '>' | '>=';
  right?: Operand;
}

export interface CompiledJsonPath {
  readonly source: string;
  /** Every value the path reaches, in document order; empty when nothing matches (missing keys are not errors). */
  find(data: unknown): unknown[];
}

/** Throws an Error naming the offset when the expression is not valid JSONPath of the supported subset. */
export function compileJsonPath(expression: string): CompiledJsonPath {
  let text = expression.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1).trim();
  const parser = new Parser(text, expression);
  const segments = parser.parsePath(true);
  parser.expectEnd();
  return {
    source: expression,
    find: (data) => evaluate(segments, [data]),
  };
}

const compiled = new Map<string, CompiledJsonPath>();

/** Compiles (cached) and evaluates. */
export function evaluateJsonPath(expression: string, data: unknown): unknown[] {
  let path = compiled.get(expression);
  if (!path) {
    path = compileJsonPath(expression);
    if (compiled.size > 1000) compiled.clear();
    compiled.set(expression, path);
  }
  return path.find(data);
}

class Parser {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly original: string,
  ) {}

  expectEnd(): void {
    this.skipSpaces();
    if (this.pos < this.text.length) this.fail(`unexpected ${JSON.stringify(this.text[this.pos])}`);
  }

  /** A path: optional `$`/`@` root, then `.field`, `..field`, `[...]` segments. */
  parsePath(allowRoot: boolean): Segment[] {
    const segments: Segment[] = [];
    this.skipSpaces();
    if (allowRoot && this.text[this.pos] === '$') this.pos++;
    for (;;) {
      const c = this.text[this.pos];
      if (c === '.') {
        if (this.text[this.pos + 1] === '.') {
          this.pos += 2;
          if (this.text[this.pos] === '*') {
            this.pos++;
            segments.push({ kind: 'recursive', name: undefined });
          } else if (this.text[this.pos] === '[') {
            segments.push({ kind: 'recursive', name: undefined });
          } else {
            segments.push({ kind: 'recursive', name: this.parseName() });
          }
          continue;
        }
        this.pos++;
        if (this.text[this.pos] === '*') {
          this.pos++;
          segments.push({ kind: 'wildcard' });
        } else if (
          this.pos >= this.text.length ||
          this.text[this.pos] === '[' ||
          this.isSpace(this.text[this.pos])
        ) {
          // A lone `.` is the current object (`{.}`); nothing to add.
        } else {
          segments.push({ kind: 'field', name: this.parseName() });
        }
      } else if (c === '[') {
        segments.push(this.parseBracket());
      } else {
        return segments;
      }
    }
  }

  private parseName(): string {
    let name = '';
    while (this.pos < this.text.length) {
      const c = this.text[this.pos]!;
      if (c === '\\' && this.pos + 1 < this.text.length) {
        name += this.text[this.pos + 1];
        this.pos += 2;
        continue;
      }
      if (
        c === '.' ||
        c === '[' ||
        c === ']' ||
        c === ')' ||
        c === '=' ||
        c === '!' ||
        c === '<' ||
        c === '>' ||
        this.isSpace(c)
      )
        break;
      name += c;
      this.pos++;
    }
    if (name === '') this.fail('expected a field name');
    return name;
  }

  private parseBracket(): Segment {
    this.pos++; // [
    this.skipSpaces();
    const c = this.text[this.pos];
    let segment: Segment;
    if (c === '*') {
      this.pos++;
      segment = { kind: 'wildcard' };
    } else if (c === '?') {
      this.pos++;
      this.skipSpaces();
      this.expect('(');
      segment = { kind: 'filter', filter: this.parseFilter() };
      this.skipSpaces();
      this.expect(')');
    } else if (c === "'" || c === '"') {
      segment = { kind: 'field', name: this.parseString() };
    } else {
      segment = this.parseIndexOrSlice();
    }
    this.skipSpaces();
    this.expect(']');
    return segment;
  }

  private parseIndexOrSlice(): Segment {
    const parts: (number | undefined)[] = [this.parseOptionalInt()];
    while (this.text[this.pos] === ':' && parts.length < 3) {
      this.pos++;
      parts.push(this.parseOptionalInt());
    }
    if (parts.length === 1) {
      if (parts[0] === undefined) this.fail('expected an index');
      return { kind: 'index', index: parts[0]! };
    }
    return { kind: 'slice', start: parts[0], end: parts[1], step: parts[2] };
  }

  private parseOptionalInt(): number | undefined {
    this.skipSpaces();
    const match = /^-?\d+/.exec(this.text.slice(this.pos));
    if (!match) return undefined;
    this.pos += match[0].length;
    this.skipSpaces();
    return Number(match[0]);
  }

  private parseFilter(): Filter {
    const left = this.parseOperand();
    this.skipSpaces();
    const op = /^(==|!=|<=|>=|<|>)/.exec(this.text.slice(this.pos))?.[0] as Filter['op'] | undefined;
    if (!op) return { left };
    this.pos += op.length;
    const right = this.parseOperand();
    return { left, op, right };
  }

  private parseOperand(): Operand {
    this.skipSpaces();
    const c = this.text[this.pos];
    if (c === '@') {
      this.pos++;
      return { kind: 'path', segments: this.parsePath(false) };
    }
    if (c === "'" || c === '"') return { kind: 'literal', value: this.parseString() };
    const match = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(this.text.slice(this.pos));
    if (!match) this.fail('expected @-path or literal in filter');
    this.pos += match![0].length;
    const word = match![0];
    return {
      kind: 'literal',
      value: word === 'true' ? true : word === 'false' ? false : word === 'null' ? null : Number(word),
    };
  }

  private parseString(): string {
    const quote = this.text[this.pos]!;
    this.pos++;
    let value = '';
    while (this.pos < this.text.length && this.text[this.pos] !== quote) {
      if (this.text[this.pos] === '\\' && this.pos + 1 < this.text.length) this.pos++;
      value += this.text[this.pos];
      this.pos++;
    }
    this.expect(quote);
    return value;
  }

  private expect(c: string): void {
    if (this.text[this.pos] !== c) this.fail(`expected ${JSON.stringify(c)}`);
    this.pos++;
  }

  private skipSpaces(): void {
    while (this.pos < this.text.length && this.isSpace(this.text[this.pos]!)) this.pos++;
  }

  private isSpace(c: string | undefined): boolean {
    return c === ' ' || c === '\t' || c === '\n' || c === '\r';
  }

  private fail(why: string): never {
    throw new Error(`invalid JSONPath ${JSON.stringify(this.original)} at offset ${this.pos}: ${why}`);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function evaluate(segments: readonly Segment[], start: unknown[]): unknown[] {
  let current = start;
  for (const segment of segments) {
    const next: unknown[] = [];
    for (const value of current) step(segment, value, next);
    current = next;
    if (current.length === 0) break;
  }
  return current;
}

function step(segment: Segment, value: unknown, out: unknown[]): void {
  switch (segment.kind) {
    case 'field':
      if (isObject(value) && Object.prototype.hasOwnProperty.call(value, segment.name)) {
        const v = value[segment.name];
        if (v !== undefined) out.push(v);
      }
      return;
    case 'wildcard':
      if (Array.isArray(value)) out.push(...value);
      else if (isObject(value)) for (const key of Object.keys(value).sort()) out.push(value[key]);
      return;
    case 'recursive':
      descend(value, segment.name, out);
      return;
    case 'index': {
      if (!Array.isArray(value)) return;
      const i = segment.index < 0 ? value.length + segment.index : segment.index;
      if (i >= 0 && i < value.length) out.push(value[i]);
      return;
    }
    case 'slice': {
      if (!Array.isArray(value)) return;
      const len = value.length;
      const stepBy = segment.step ?? 1;
      if (stepBy <= 0) return;
      const clamp = (n: number) => Math.min(Math.max(n < 0 ? len + n : n, 0), len);
      const from = clamp(segment.start ?? 0);
      const to = clamp(segment.end ?? len);
      for (let i = from; i < to; i += stepBy) out.push(value[i]);
      return;
    }
    case 'filter': {
      // Kubernetes filters only arrays; a filter on anything else finds nothing.
      if (!Array.isArray(value)) return;
      for (const item of value) if (matches(segment.filter, item)) out.push(item);
      return;
    }
  }
}

/** `..name` collects `name` at every depth; `..` alone (followed by `[`/`*`) yields every node. */
function descend(value: unknown, name: string | undefined, out: unknown[]): void {
  if (name === undefined) out.push(value);
  if (Array.isArray(value)) {
    for (const item of value) descend(item, name, out);
  } else if (isObject(value)) {
    for (const key of Object.keys(value).sort()) {
      if (name !== undefined && key === name) out.push(value[key]);
      descend(value[key], name, out);
    }
  }
}

function operandValue(operand: Operand, item: unknown): unknown[] {
  return operand.kind === 'literal' ? [operand.value] : evaluate(operand.segments, [item]);
}

function matches(filter: Filter, item: unknown): boolean {
  const left = operandValue(filter.left, item);
  if (!filter.op || !filter.right) return left.length > 0 && left[0] !== null;
  const right = operandValue(filter.right, item);
  if (left.length === 0 || right.length === 0) return false;
  return compare(left[0], filter.op, right[0]);
}

function compare(a: unknown, op: NonNullable<Filter['op']>, b: unknown): boolean {
  if (op === '==') return a === b;
  if (op === '!=') return a !== b;
  const bothNumbers = typeof a === 'number' && typeof b === 'number';
  const bothStrings = typeof a === 'string' && typeof b === 'string';
  if (!bothNumbers && !bothStrings) return false;
  const x = a as number | string;
  const y = b as number | string;
  switch (op) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    case '>=':
      return x >= y;
  }
}
