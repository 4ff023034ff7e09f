// Parser for Go text/template: builds the node trees Go's text/template/parse builds, with the
// same checks at parse time (known functions, declared variables, break outside range) and errors.

import { type Item, ItemType, goQuote, itemString, lex } from './lex.js';

/** Where a node came from: enough to compute Go's "NAME:LINE:COL" error locations. */
export interface Source {
  readonly parseName: string;
  readonly text: string;
}

interface Base {
  pos: number;
  src: Source;
}

export interface ListNode extends Base {
  type: 'list';
  nodes: Node[];
}
export interface TextNode extends Base {
  type: 'text';
  text: string;
}
export interface CommentNode extends Base {
  type: 'comment';
  text: string;
}
export interface ActionNode extends Base {
  type: 'action';
  line: number;
  pipe: PipeNode;
}
export interface PipeNode extends Base {
  type: 'pipe';
  line: number;
  isAssign: boolean;
  decl: VariableNode[];
  cmds: CommandNode[];
}
export interface CommandNode extends Base {
  type: 'command';
  args: Node[];
}
export interface IdentifierNode extends Base {
  type: 'identifier';
  ident: string;
}
export interface VariableNode extends Base {
  type: 'variable';
  ident: string[];
}
export interface DotNode extends Base {
  type: 'dot';
}
export interface NilNode extends Base {
  type: 'nil';
}
export interface FieldNode extends Base {
  type: 'field';
  ident: string[];
}
export interface ChainNode extends Base {
  type: 'chain';
  node: Node;
  field: string[];
}
export interface BoolNode extends Base {
  type: 'bool';
  value: boolean;
}
export interface NumberNode extends Base {
  type: 'number';
  text: string;
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  isComplex: boolean;
  int: bigint;
  /** The value when isUint (it may exceed int64). */
  uint: bigint;
  float: number;
}
export interface StringNode extends Base {
  type: 'string';
  quoted: string;
  text: string;
}
export interface EndNode extends Base {
  type: 'end';
}
export interface ElseNode extends Base {
  type: 'else';
  line: number;
}
export interface BranchNode extends Base {
  type: 'if' | 'range' | 'with';
  line: number;
  pipe: PipeNode;
  list: ListNode;
  elseList: ListNode | null;
}
export interface TemplateNode extends Base {
  type: 'template';
  line: number;
  name: string;
  pipe: PipeNode | null;
}
export interface BreakNode extends Base {
  type: 'break' | 'continue';
  line: number;
}

export type Node =
  | ListNode
  | TextNode
  | CommentNode
  | ActionNode
  | PipeNode
  | CommandNode
  | IdentifierNode
  | VariableNode
  | DotNode
  | NilNode
  | FieldNode
  | ChainNode
  | BoolNode
  | NumberNode
  | StringNode
  | EndNode
  | ElseNode
  | BranchNode
  | TemplateNode
  | BreakNode;

/** A parsed template body (Go's parse.Tree). */
export interface Tree {
  name: string;
  parseName: string;
  root: ListNode;
  src: Source;
}

/** A parse error, worded as Go's: "template: NAME:LINE: …". */
export class TemplateParseError extends Error {
  override name = 'TemplateParseError';
}

/** Go's node.String(): how nodes are shown in error contexts. */
export function nodeString(n: Node): string {
  switch (n.type) {
    case 'list':
      return n.nodes.map(nodeString).join('');
    case 'text':
      return n.text;
    case 'comment':
      return `{{${n.text}}}`;
    case 'action':
      return `{{${nodeString(n.pipe)}}}`;
    case 'pipe': {
      let s = '';
      if (n.decl.length > 0) s = n.decl.map(nodeString).join(', ') + (n.isAssign ? ' = ' : ' := ');
      return s + n.cmds.map(nodeString).join(' | ');
    }
    case 'command':
      return n.args.map((a) => (a.type === 'pipe' ? `(${nodeString(a)})` : nodeString(a))).join(' ');
    case 'identifier':
      return n.ident;
    case 'variable':
      return n.ident.join('.');
    case 'dot':
      return '.';
    case 'nil':
      return 'nil';
    case 'field':
      return n.ident.map((i) => '.' + i).join('');
    case 'chain': {
      const head = n.node.type === 'pipe' ? `(${nodeString(n.node)})` : nodeString(n.node);
      return head + n.field.map((f) => '.' + f).join('');
    }
    case 'bool':
      return n.value ? 'true' : 'false';
    case 'number':
      return n.text;
    case 'string':
      return n.quoted;
    case 'end':
      return '{{end}}';
    case 'else':
      return '{{else}}';
    case 'if':
    case 'range':
    case 'with': {
      const els = n.elseList ? `{{else}}${nodeString(n.elseList)}` : '';
      return `{{${n.type} ${nodeString(n.pipe)}}}${nodeString(n.list)}${els}{{end}}`;
    }
    case 'template':
      return n.pipe
        ? `{{template ${goQuote(n.name)} ${nodeString(n.pipe)}}}`
        : `{{template ${goQuote(n.name)}}}`;
    case 'break':
      return '{{break}}';
    case 'continue':
      return '{{continue}}';
  }
}

/** Go's IsEmptyTree: only whitespace text and comments. */
export function isEmptyTree(n: Node | null): boolean {
  if (n === null) return true;
  switch (n.type) {
    case 'list':
      return n.nodes.every(isEmptyTree);
    case 'text':
      // bytes.TrimSpace: unicode.IsSpace characters only (JS's trim would also drop U+FEFF).
      return /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/.test(n.text);
    case 'comment':
      return true;
    default:
      return false;
  }
}

export interface ParseOptions {
  leftDelim?: string;
  rightDelim?: string;
  /** Whether a function name is known (user functions and builtins). */
  hasFunction: (name: string) => boolean;
}

/**
 * Parse `text` as the template `name`. Returns every tree the text defines: the top-level one under
 * `name` (possibly empty) and one per `define`/`block`, in definition order.
 */
export function parse(name: string, text: string, opts: ParseOptions): Map<string, Tree> {
  // Go's Delims: an empty delimiter means the default.
  const items = lex(text, opts.leftDelim || '{{', opts.rightDelim || '}}');
  const src: Source = { parseName: name, text };
  const treeSet = new Map<string, Tree>();
  const p = new Parser(items, src, treeSet, opts.hasFunction);
  p.parseTop(name);
  return treeSet;
}

// The parser state shared by the top-level tree and nested define/block trees of one text: one item
// stream, one tree set. Variables and range depth are per tree, as in Go.
class Parser {
  private idx = 0;
  private hi = 0;
  private vars: string[] = ['$'];
  private rangeDepth = 0;
  private actionLine = 0;
  private treeName = '';

  constructor(
    private readonly items: Item[],
    private readonly src: Source,
    private readonly treeSet: Map<string, Tree>,
    private readonly hasFunction: (name: string) => boolean,
  ) {}

  private item(i: number): Item {
    // The stream always ends with EOF or an error item; never read past it.
    const last = this.items[this.items.length - 1] as Item;
    return this.items[i] ?? last;
  }

  private next(): Item {
    const it = this.item(this.idx);
    if (this.idx < this.items.length - 1 || this.idx === this.items.length - 1) this.idx++;
    if (this.idx - 1 > this.hi) this.hi = this.idx - 1;
    return it;
  }
  private backup(n = 1): void {
    this.idx -= n;
  }
  private peek(): Item {
    const it = this.next();
    this.backup();
    return it;
  }
  private nextNonSpace(): Item {
    let it: Item;
    do it = this.next();
    while (it.typ === ItemType.Space);
    return it;
  }
  private peekNonSpace(): Item {
    const it = this.nextNonSpace();
    this.backup();
    return it;
  }

  errorf(msg: string): never {
    const line = this.item(Math.min(this.hi, this.items.length - 1)).line;
    throw new TemplateParseError(`template: ${this.src.parseName}:${line}: ${msg}`);
  }

  private expect(typ: ItemType, context: string): Item {
    const t = this.nextNonSpace();
    if (t.typ !== typ) this.unexpected(t, context);
    return t;
  }

  private unexpected(token: Item, context: string): never {
    if (token.typ === ItemType.Error) {
      let extra = '';
      if (this.actionLine !== 0 && this.actionLine !== token.line) {
        extra = ` in action started at ${this.src.parseName}:${this.actionLine}`;
        if (token.val.endsWith(' action')) extra = extra.slice(' in action'.length);
      }
      this.errorf(`${token.val}${extra}`);
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`);
  }

  private list(pos: number): ListNode {
    return { type: 'list', pos, src: this.src, nodes: [] };
  }

  private add(name: string, root: ListNode): void {
    const old = this.treeSet.get(name);
    if (old === undefined || isEmptyTree(old.root)) {
      this.treeSet.set(name, { name, parseName: this.src.parseName, root, src: this.src });
      return;
    }
    if (!isEmptyTree(root)) this.errorf(`template: multiple definition of template ${goQuote(name)}`);
  }

  // Run fn as a nested tree (define/block): fresh variables and range depth.
  private nested<T>(name: string, fn: () => T): T {
    const saved = {
      vars: this.vars,
      rangeDepth: this.rangeDepth,
      treeName: this.treeName,
      actionLine: this.actionLine,
    };
    this.vars = ['$'];
    this.rangeDepth = 0;
    this.treeName = name;
    try {
      return fn();
    } finally {
      this.vars = saved.vars;
      this.rangeDepth = saved.rangeDepth;
      this.treeName = saved.treeName;
      this.actionLine = saved.actionLine;
    }
  }

  parseTop(name: string): void {
    this.treeName = name;
    const root = this.list(this.peek().pos);
    while (this.peek().typ !== ItemType.EOF) {
      if (this.peek().typ === ItemType.LeftDelim) {
        this.next();
        if (this.nextNonSpace().typ === ItemType.Define) {
          this.nested('definition', () => this.parseDefinition());
          continue;
        }
        // Back up to the left delimiter (skipping any spaces we consumed).
        while (this.item(this.idx - 1).typ !== ItemType.LeftDelim) this.backup();
        this.backup();
      }
      const n = this.textOrAction();
      if (n.type === 'end' || n.type === 'else') this.errorf(`unexpected ${nodeString(n)}`);
      root.nodes.push(n);
    }
    this.add(name, root);
  }

  private parseDefinition(): void {
    const context = 'define clause';
    const tok = this.nextNonSpace();
    if (tok.typ !== ItemType.String && tok.typ !== ItemType.RawString) this.unexpected(tok, context);
    const name = this.unquote(tok.val);
    this.treeName = name;
    this.expect(ItemType.RightDelim, context);
    const [root, end] = this.itemList();
    if (end.type !== 'end') this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add(name, root);
  }

  private itemList(): [ListNode, Node] {
    const list = this.list(this.peekNonSpace().pos);
    while (this.peekNonSpace().typ !== ItemType.EOF) {
      const n = this.textOrAction();
      if (n.type === 'end' || n.type === 'else') return [list, n];
      list.nodes.push(n);
    }
    this.errorf('unexpected EOF');
  }

  private textOrAction(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case ItemType.Text:
        return { type: 'text', pos: token.pos, src: this.src, text: token.val };
      case ItemType.LeftDelim: {
        this.actionLine = token.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      }
      case ItemType.Comment:
        return { type: 'comment', pos: token.pos, src: this.src, text: token.val };
      default:
        this.unexpected(token, 'input');
    }
  }

  private action(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case ItemType.Block:
        return this.blockControl();
      case ItemType.Break:
      case ItemType.Continue:
        return this.breakControl(token);
      case ItemType.Else:
        return this.elseControl();
      case ItemType.End:
        return { type: 'end', pos: this.expect(ItemType.RightDelim, 'end').pos, src: this.src };
      case ItemType.If:
        return this.control('if');
      case ItemType.Range:
        return this.control('range');
      case ItemType.Template:
        return this.templateControl();
      case ItemType.With:
        return this.control('with');
    }
    this.backup();
    const t = this.peek();
    return {
      type: 'action',
      pos: t.pos,
      line: t.line,
      src: this.src,
      pipe: this.pipeline('command', ItemType.RightDelim),
    };
  }

  private breakControl(tok: Item): BreakNode {
    const word = tok.typ === ItemType.Break ? 'break' : 'continue';
    const t = this.nextNonSpace();
    if (t.typ !== ItemType.RightDelim) this.unexpected(t, `{{${word}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${word}}} outside {{range}}`);
    return { type: word, pos: tok.pos, line: tok.line, src: this.src };
  }

  private elseControl(): ElseNode {
    const p = this.peekNonSpace();
    if (p.typ === ItemType.If || p.typ === ItemType.With)
      return { type: 'else', pos: p.pos, line: p.line, src: this.src };
    const t = this.expect(ItemType.RightDelim, 'else');
    return { type: 'else', pos: t.pos, line: t.line, src: this.src };
  }

  private control(context: 'if' | 'range' | 'with'): BranchNode {
    const mark = this.vars.length;
    try {
      const pipe = this.pipeline(context, ItemType.RightDelim);
      if (context === 'range') this.rangeDepth++;
      let [list, next] = this.itemList();
      if (context === 'range') this.rangeDepth--;
      let elseList: ListNode | null = null;
      if (next.type === 'else') {
        // "else if"/"else with" is sugar for {{else}}{{if …}}…{{end}}{{end}}, the last end assumed.
        if (context === 'if' && this.peek().typ === ItemType.If) {
          this.next();
          elseList = this.list(next.pos);
          elseList.nodes.push(this.control('if'));
        } else if (context === 'with' && this.peek().typ === ItemType.With) {
          this.next();
          elseList = this.list(next.pos);
          elseList.nodes.push(this.control('with'));
        } else {
          [elseList, next] = this.itemList();
          if (next.type !== 'end') this.errorf(`expected end; found ${nodeString(next)}`);
        }
      }
      list = list as ListNode;
      return { type: context, pos: pipe.pos, line: pipe.line, src: this.src, pipe, list, elseList };
    } finally {
      this.vars.length = mark;
    }
  }

  private blockControl(): TemplateNode {
    const context = 'block clause';
    const token = this.nextNonSpace();
    const name = this.templateName(token, context);
    const pipe = this.pipeline(context, ItemType.RightDelim);
    this.nested(name, () => {
      const [root, end] = this.itemList();
      if (end.type !== 'end') this.errorf(`unexpected ${nodeString(end)} in ${context}`);
      this.add(name, root);
    });
    return { type: 'template', pos: token.pos, line: token.line, src: this.src, name, pipe };
  }

  private templateControl(): TemplateNode {
    const context = 'template clause';
    const token = this.nextNonSpace();
    const name = this.templateName(token, context);
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().typ !== ItemType.RightDelim) {
      this.backup();
      pipe = this.pipeline(context, ItemType.RightDelim);
    }
    return { type: 'template', pos: token.pos, line: token.line, src: this.src, name, pipe };
  }

  private templateName(token: Item, context: string): string {
    if (token.typ === ItemType.String || token.typ === ItemType.RawString) return this.unquote(token.val);
    this.unexpected(token, context);
  }

  private pipeline(context: string, end: ItemType): PipeNode {
    const token = this.peekNonSpace();
    const pipe: PipeNode = {
      type: 'pipe',
      pos: token.pos,
      line: token.line,
      src: this.src,
      isAssign: false,
      decl: [],
      cmds: [],
    };
    decls: for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== ItemType.Variable) break;
      const before = this.idx;
      this.nextNonSpace();
      const tokenAfterVariable = this.peek();
      const next = this.peekNonSpace();
      if (next.typ === ItemType.Assign || next.typ === ItemType.Declare) {
        pipe.isAssign = next.typ === ItemType.Assign;
        this.nextNonSpace();
        pipe.decl.push(this.variable(v.pos, v.val));
        this.vars.push(v.val);
      } else if (next.typ === ItemType.Char && next.val === ',') {
        this.nextNonSpace();
        pipe.decl.push(this.variable(v.pos, v.val));
        this.vars.push(v.val);
        if (context === 'range' && pipe.decl.length < 2) {
          const p = this.peekNonSpace().typ;
          if (p === ItemType.Variable || p === ItemType.RightDelim || p === ItemType.RightParen)
            continue decls;
          this.errorf('range can only initialize variables');
        }
        this.errorf(`too many declarations in ${context}`);
      } else {
        // An operand, not a declaration: put the variable back.
        void tokenAfterVariable;
        this.idx = before;
      }
      break;
    }
    for (;;) {
      const token = this.nextNonSpace();
      if (token.typ === end) {
        this.checkPipeline(pipe, context);
        return pipe;
      }
      switch (token.typ) {
        case ItemType.Bool:
        case ItemType.CharConstant:
        case ItemType.Complex:
        case ItemType.Dot:
        case ItemType.Field:
        case ItemType.Identifier:
        case ItemType.Number:
        case ItemType.Nil:
        case ItemType.RawString:
        case ItemType.String:
        case ItemType.Variable:
        case ItemType.LeftParen:
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(token, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    pipe.cmds.slice(1).forEach((c, i) => {
      const t = c.args[0]?.type;
      if (t === 'bool' || t === 'dot' || t === 'nil' || t === 'number' || t === 'string') {
        this.errorf(`non executable command in pipeline stage ${i + 2}`);
      }
    });
  }

  private command(): CommandNode {
    const cmd: CommandNode = { type: 'command', pos: this.peekNonSpace().pos, src: this.src, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand !== null) cmd.args.push(operand);
      const token = this.next();
      if (token.typ === ItemType.Space) continue;
      if (token.typ === ItemType.RightDelim || token.typ === ItemType.RightParen) this.backup();
      else if (token.typ !== ItemType.Pipe) this.unexpected(token, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.errorf('empty command');
    return cmd;
  }

  private operand(): Node | null {
    let node = this.term();
    if (node === null) return null;
    if (this.peek().typ === ItemType.Field) {
      const chainPos = this.peek().pos;
      const fields: string[] = [];
      while (this.peek().typ === ItemType.Field) fields.push(this.next().val.slice(1));
      switch (node.type) {
        case 'field':
          node = { type: 'field', pos: chainPos, src: this.src, ident: [...node.ident, ...fields] };
          break;
        case 'variable':
          node = { type: 'variable', pos: chainPos, src: this.src, ident: [...node.ident, ...fields] };
          break;
        case 'bool':
        case 'string':
        case 'number':
        case 'nil':
        case 'dot':
          this.errorf(`unexpected . after term ${goQuote(nodeString(node))}`);
          break;
        default:
          node = { type: 'chain', pos: chainPos, src: this.src, node, field: fields };
      }
    }
    return node;
  }

  private term(): Node | null {
    const token = this.nextNonSpace();
    const pos = token.pos;
    const src = this.src;
    switch (token.typ) {
      case ItemType.Identifier:
        if (!this.hasFunction(token.val)) this.errorf(`function ${goQuote(token.val)} not defined`);
        return { type: 'identifier', pos, src, ident: token.val };
      case ItemType.Dot:
        return { type: 'dot', pos, src };
      case ItemType.Nil:
        return { type: 'nil', pos, src };
      case ItemType.Variable:
        return this.useVar(pos, token.val);
      case ItemType.Field:
        return { type: 'field', pos, src, ident: token.val.slice(1).split('.') };
      case ItemType.Bool:
        return { type: 'bool', pos, src, value: token.val === 'true' };
      case ItemType.CharConstant:
      case ItemType.Complex:
      case ItemType.Number:
        return this.number(pos, token.val, token.typ);
      case ItemType.LeftParen:
        return this.pipeline('parenthesized pipeline', ItemType.RightParen);
      case ItemType.String:
      case ItemType.RawString:
        return { type: 'string', pos, src, quoted: token.val, text: this.unquote(token.val) };
    }
    this.backup();
    return null;
  }

  private variable(pos: number, name: string): VariableNode {
    return { type: 'variable', pos, src: this.src, ident: name.split('.') };
  }

  private useVar(pos: number, name: string): VariableNode {
    const v = this.variable(pos, name);
    const first = v.ident[0] ?? '';
    if (!this.vars.includes(first)) this.errorf(`undefined variable ${goQuote(first)}`);
    return v;
  }

  private unquote(q: string): string {
    try {
      return unquoteGo(q);
    } catch {
      this.errorf('invalid syntax');
    }
  }

  private number(pos: number, text: string, typ: ItemType): NumberNode {
    const n: NumberNode = {
      type: 'number',
      pos,
      src: this.src,
      text,
      isInt: false,
      isUint: false,
      isFloat: false,
      isComplex: false,
      int: 0n,
      uint: 0n,
      float: 0,
    };
    if (typ === ItemType.CharConstant) {
      let r: { cp: number; rest: string };
      try {
        r = unquoteChar(text.slice(1), "'");
      } catch {
        this.errorf('invalid syntax');
      }
      if (r.rest !== "'") this.errorf(`malformed character constant: ${text}`);
      n.isInt = n.isUint = n.isFloat = true;
      n.int = n.uint = BigInt(r.cp);
      n.float = r.cp;
      return n;
    }
    if (typ === ItemType.Complex || text.endsWith('i')) {
      // Complex numbers have no place in the value model; Go templates almost never use them.
      this.errorf(`complex number ${text} not supported`);
    }
    const i = parseGoInt(text);
    if (i !== null) {
      const minI = -(1n << 63n);
      const maxI = (1n << 63n) - 1n;
      const maxU = (1n << 64n) - 1n;
      if (i >= 0n && i <= maxU) {
        n.isUint = true;
        n.uint = i;
      }
      if (i >= minI && i <= maxI) {
        n.isInt = true;
        n.int = i;
      }
      if (n.isInt || n.isUint) {
        n.isFloat = true;
        n.float = Number(i);
      }
    }
    if (!n.isInt && !n.isUint) {
      const f = parseGoFloat(text);
      if (f !== null) {
        if (!/[.eEpP]/.test(text)) this.errorf(`integer overflow: ${goQuote(text)}`);
        n.isFloat = true;
        n.float = f;
        if (Number.isInteger(f) && Math.abs(f) < 2 ** 63) {
          n.isInt = true;
          n.int = BigInt(f);
        }
        if (Number.isInteger(f) && f >= 0 && f < 2 ** 64) {
          n.isUint = true;
          n.uint = BigInt(f);
        }
      }
    }
    if (!n.isInt && !n.isUint && !n.isFloat) this.errorf(`illegal number syntax: ${goQuote(text)}`);
    return n;
  }
}

// Go's underscoreOK: underscores only between digits (or right after a base prefix).
function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.startsWith('+') || s.startsWith('-')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && /[bBoOxX]/.test(s[1] ?? '')) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i] ?? '';
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** strconv.ParseInt(text, 0, …) without the range check; null if not an integer literal. */
export function parseGoInt(text: string): bigint | null {
  let s = text;
  let neg = false;
  if (s.startsWith('+') || s.startsWith('-')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '') return null;
  let base = 10;
  let body = s;
  if (s.length >= 2 && s[0] === '0') {
    const p = (s[1] ?? '').toLowerCase();
    if (p === 'x') base = 16;
    else if (p === 'o') base = 8;
    else if (p === 'b') base = 2;
    if (base !== 10) body = s.slice(2);
    else {
      base = 8;
      body = s.slice(1);
    }
  }
  if (s.includes('_') && !underscoreOK(s)) return null;
  body = body.replace(/_/g, '');
  if (body === '') return base === 8 && s.length >= 1 && !/[oO]/.test(s) ? 0n : null;
  const digits = '0123456789abcdef'.slice(0, base);
  let v = 0n;
  for (const c of body.toLowerCase()) {
    const d = digits.indexOf(c);
    if (d < 0) return null;
    v = v * BigInt(base) + BigInt(d);
  }
  return neg ? -v : v;
}

/** strconv.ParseFloat(text, 64) for Go literal syntax (decimal and hex floats); null on error. */
export function parseGoFloat(text: string): number | null {
  let s = text;
  if (s.includes('_')) {
    if (!underscoreOK(s)) return null;
    s = s.replace(/_/g, '');
  }
  let sign = 1;
  if (s.startsWith('+') || s.startsWith('-')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  const hex = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/.exec(s);
  if (hex) {
    const intPart = hex[1] ?? '';
    const frac = hex[2] ?? '';
    if (intPart === '' && frac === '') return null;
    let m = 0;
    for (const c of intPart + frac) m = m * 16 + parseInt(c, 16);
    const exp = Number(hex[3]) - 4 * frac.length;
    return sign * m * 2 ** exp;
  }
  if (!/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return null;
  const f = Number(s);
  if (!Number.isFinite(f)) return null;
  return sign * f;
}

/** strconv.UnquoteChar: one possibly escaped character from s, and what follows it. */
export function unquoteChar(s: string, quote: string): { cp: number; rest: string } {
  const c = s[0];
  if (c === undefined) throw new Error('invalid syntax');
  if (c === quote && (quote === "'" || quote === '"')) throw new Error('invalid syntax');
  if (c !== '\\') {
    const cp = s.codePointAt(0) ?? 0;
    return { cp, rest: s.slice(String.fromCodePoint(cp).length) };
  }
  const e = s[1];
  const simple: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, '\\': 92 };
  if (e === undefined) throw new Error('invalid syntax');
  if (simple[e] !== undefined) return { cp: simple[e], rest: s.slice(2) };
  if (e === "'" || e === '"') {
    if (e !== quote) throw new Error('invalid syntax');
    return { cp: e.charCodeAt(0), rest: s.slice(2) };
  }
  const hexLen: Record<string, number> = { x: 2, u: 4, U: 8 };
  const hl = hexLen[e];
  if (hl !== undefined) {
    const h = s.slice(2, 2 + hl);
    if (h.length !== hl || !/^[0-9a-fA-F]+$/.test(h)) throw new Error('invalid syntax');
    const cp = parseInt(h, 16);
    if (e !== 'x' && (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))) throw new Error('invalid syntax');
    return { cp, rest: s.slice(2 + hl) };
  }
  if (e >= '0' && e <= '7') {
    const o = s.slice(1, 4);
    if (!/^[0-7]{3}$/.test(o)) throw new Error('invalid syntax');
    const cp = parseInt(o, 8);
    if (cp > 255) throw new Error('invalid syntax');
    return { cp, rest: s.slice(4) };
  }
  throw new Error('invalid syntax');
}

/** strconv.Unquote for "…" and `…` literals. \x escapes give bytes; we map them to code points. */
export function unquoteGo(q: string): string {
  if (q.length < 2) throw new Error('invalid syntax');
  const quote = q[0];
  if (quote !== q[q.length - 1]) throw new Error('invalid syntax');
  const body = q.slice(1, -1);
  if (quote === '`') {
    if (body.includes('`')) throw new Error('invalid syntax');
    return body.replace(/\r/g, '');
  }
  if (quote !== '"') throw new Error('invalid syntax');
  if (body.includes('\n')) throw new Error('invalid syntax');
  if (!body.includes('\\') && !body.includes('"')) return body;
  let out = '';
  let rest = body;
  const bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length > 0) {
      out += Buffer.from(bytes).toString('utf8');
      bytes.length = 0;
    }
  };
  while (rest.length > 0) {
    const isByte =
      rest[0] === '\\' && (rest[1] === 'x' || (rest[1] !== undefined && rest[1] >= '0' && rest[1] <= '7'));
    const r = unquoteChar(rest, '"');
    if (isByte) bytes.push(r.cp);
    else {
      flush();
      out += String.fromCodePoint(r.cp);
    }
    rest = r.rest;
  }
  flush();
  return out;
}
