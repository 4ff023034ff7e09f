// Executes parsed Go templates with Go's text/template semantics: truthiness, variable scoping,
// field lookup and missing keys, function calls, the builtin functions, and Go's error texts.

import { formatValue, sprint, sprintf, sprintln } from './fmt.js';
import { goQuote } from './lex.js';
import {
  type BranchNode,
  type ChainNode,
  type CommandNode,
  type FieldNode,
  type IdentifierNode,
  type Node,
  type NumberNode,
  type PipeNode,
  type TemplateNode,
  type Tree,
  type VariableNode,
  nodeString,
} from './parse.js';
import {
  type GoFunc,
  type GoValue,
  GoSizedInt,
  goTypeName,
  integerValue,
  isGoMap,
  isGoOpaque,
  isSizedIntType,
} from './value.js';

/**
 * Go's invalid reflect.Value: what a missing map key yields by default. Distinct from `null`, which
 * is a nil interface{} (a key present with a nil value); Go treats them differently in field chains.
 */
export const NO_VALUE: unique symbol = Symbol('no value');
type Val = GoValue | typeof NO_VALUE;

/** Go's "missing final argument" marker for pipelines. */
const MISSING: unique symbol = Symbol('missing');
type Final = Val | typeof MISSING;

export type MissingKeyMode = 'default' | 'zero' | 'error';

/**
 * An opaque Go value with fields or methods reachable from templates (.Files.Get, .Capabilities…).
 * Methods are looked up before fields, as Go does.
 */
export interface GoObject {
  readonly goType: string;
  format(): string;
  getMethod?(name: string): GoFunc | undefined;
  getField?(name: string): GoValue | undefined;
  /**
   * For a Go value of map kind (helm's engine.files is a map[string][]byte with methods): its entries,
   * which range, len and index see as they see a map's. `zero` is what index gives for a missing key.
   */
  mapEntries?(): Map<string, GoValue>;
  mapZero?: GoValue;
}

/**
 * A Go function signature: parameter types as Go prints them ('string', 'int', 'float64', 'bool',
 * 'interface {}', '[]interface {}', 'map[string]interface {}', or any other Go type name, which the
 * executor passes through unchecked). With one attached (see withSignature), the executor checks the
 * argument count and types and converts literals as Go does, with Go's error texts.
 */
export interface GoSignature {
  params: string[];
  /** Element type of a trailing ...T parameter. */
  variadic?: string;
}

/** Attach a Go signature to a function (returns the same function). */
export function withSignature<F extends GoFunc>(fn: F, sig: GoSignature): F {
  Object.defineProperty(fn, 'goSignature', { value: sig, enumerable: false });
  return fn;
}

function canBeNil(typ: string): boolean {
  return (
    typ === 'interface {}' ||
    typ.startsWith('[]') ||
    typ.startsWith('map[') ||
    typ.startsWith('*') ||
    typ.startsWith('func(') ||
    typ.startsWith('chan ')
  );
}

/** What execution needs from the template set. */
export interface ExecEnv {
  lookup(name: string): Tree | undefined;
  funcs: Readonly<Record<string, GoFunc>>;
  /** `this` for function calls: lets helm's include/tpl reach the set actually executing. */
  thisArg?: unknown;
  missingKey: MissingKeyMode;
}

/** An execution error, worded as Go's: `template: NAME:LINE:COL: executing "NAME" at <…>: …`. */
export class TemplateExecError extends Error {
  override name = 'TemplateExecError';
}

/** JavaScript ran out of stack (no regex here: compiling one may itself overflow at this depth). */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && e.message.includes('call stack');
}

/**
 * Thrown by a GoFunc for errors Go's executor reports itself, before the call, without the
 * "error calling F:" wrapper (wrong number or types of arguments).
 */
export class GoFuncError extends Error {}

// sprig's GoArgTypeError plays the same role; matched by name so the engine needs no import of sprig.
function isUnwrappedError(e: unknown): boolean {
  return e instanceof GoFuncError || (e instanceof Error && e.constructor.name === 'GoArgTypeError');
}

const BUILTINS = new Set([
  'and',
  'call',
  'html',
  'index',
  'slice',
  'js',
  'len',
  'not',
  'or',
  'print',
  'printf',
  'println',
  'urlquery',
  'eq',
  'ge',
  'gt',
  'le',
  'lt',
  'ne',
]);

export function isBuiltin(name: string): boolean {
  return BUILTINS.has(name);
}

const maxExecDepth = 100000;

// {{break}} and {{continue}} unwind to the enclosing range by throwing these sentinels.
const BREAK = { signal: 'break' } as const;
const CONTINUE = { signal: 'continue' } as const;

interface Variable {
  name: string;
  value: Val;
  /** Holds an element read out of a slice or map (Go names its type "interface {}" in errors). */
  slot?: boolean;
}

/** Go's ErrorContext: "NAME:LINE:COL" and the node's text. */
export function errorContext(n: Node): { location: string; context: string } {
  const text = n.src.text.slice(0, n.pos);
  const nl = text.lastIndexOf('\n');
  // Go counts bytes, not UTF-16 units.
  const col = Buffer.byteLength(nl === -1 ? text : text.slice(nl + 1), 'utf8');
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) line++;
  const context = nodeString(n);
  return { location: `${n.src.parseName}:${line}:${col}`, context };
}

function errMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Go's isTrue on a value; ok=false for values with no truth (none in this value model). */
function truth(v: Val): boolean {
  if (v === NO_VALUE || v === null || v === undefined) return false;
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'string':
      return v.length > 0;
    case 'bigint':
      return v !== 0n;
    case 'number':
      return v !== 0;
    case 'function':
      return true;
  }
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof GoSizedInt) return v.value !== 0n;
  if (isGoOpaque(v)) return true;
  return Object.keys(v).length > 0;
}

/** Go's IsTrue for use by functions (sprig's `empty`, `default`). */
export function isTrue(v: GoValue): boolean {
  return truth(v);
}

function toGo(v: Val): GoValue {
  return v === NO_VALUE || v === undefined ? null : v;
}

function typeOf(v: Val): string {
  return v === NO_VALUE ? '<nil>' : goTypeName(v);
}

/** Run one template tree. */
export function executeTree(env: ExecEnv, name: string, tree: Tree, data: GoValue, depth = 0): string {
  const s = new State(env, name, depth);
  s.vars.push({ name: '$', value: data });
  s.walk(data, tree.root);
  return s.out;
}

class State {
  out = '';
  node: Node | null = null;
  vars: Variable[] = [];
  /** Dot is an element of the slice or map being ranged over. */
  dotSlot = false;

  constructor(
    private readonly env: ExecEnv,
    private readonly name: string,
    private readonly depth: number,
  ) {}

  errorf(msg: string): never {
    if (this.node === null) throw new TemplateExecError(`template: ${this.name}: ${msg}`);
    const { location, context } = errorContext(this.node);
    throw new TemplateExecError(
      `template: ${location}: executing ${goQuote(this.name)} at <${context}>: ${msg}`,
    );
  }

  private at(n: Node): void {
    this.node = n;
  }

  private setVar(name: string, value: Val, slot = false): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i] as Variable;
      if (v.name === name) {
        v.value = value;
        v.slot = slot;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  private variable(name: string): Variable {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const v = this.vars[i] as Variable;
      if (v.name === name) return v;
    }
    this.errorf(`undefined variable: ${name}`);
  }

  walk(dot: Val, node: Node): void {
    this.at(node);
    switch (node.type) {
      case 'action': {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return;
      }
      case 'break':
        throw BREAK;
      case 'continue':
        throw CONTINUE;
      case 'comment':
        return;
      case 'if':
      case 'with':
        this.walkIfOrWith(dot, node);
        return;
      case 'list':
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case 'range':
        this.walkRange(dot, node);
        return;
      case 'template':
        this.walkTemplate(dot, node);
        return;
      case 'text':
        this.out += node.text;
        return;
      default:
        this.errorf(`unknown node: ${nodeString(node)}`);
    }
  }

  private walkIfOrWith(dot: Val, node: BranchNode): void {
    const mark = this.vars.length;
    try {
      const val = this.evalPipeline(dot, node.pipe);
      if (truth(val)) {
        if (node.type === 'with') {
          const saved = this.dotSlot;
          this.dotSlot = false;
          try {
            this.walk(val, node.list);
          } finally {
            this.dotSlot = saved;
          }
        } else {
          this.walk(dot, node.list);
        }
      } else if (node.elseList) {
        this.walk(dot, node.elseList);
      }
    } finally {
      this.vars.length = mark;
    }
  }

  private walkRange(dot: Val, r: BranchNode): void {
    this.at(r);
    const outer = this.vars.length;
    try {
      const val = this.evalPipeline(dot, r.pipe);
      const mark = this.vars.length;
      const decl = r.pipe.decl;
      const savedSlot = this.dotSlot;
      const oneIteration = (index: Val, elem: Val, slot = true): boolean => {
        if (decl.length > 0) {
          if (r.pipe.isAssign) {
            if (decl.length > 1) this.setVar((decl[0] as VariableNode).ident[0] ?? '', index, false);
            else this.setVar((decl[0] as VariableNode).ident[0] ?? '', elem, slot);
          } else {
            const v = this.vars[this.vars.length - 1] as Variable;
            v.value = elem;
            v.slot = slot;
          }
        }
        if (decl.length > 1) {
          if (r.pipe.isAssign) this.setVar((decl[1] as VariableNode).ident[0] ?? '', elem, slot);
          else {
            const v = this.vars[this.vars.length - 2] as Variable;
            v.value = index;
            v.slot = false;
          }
        }
        this.dotSlot = slot;
        try {
          this.walk(elem, r.list);
        } catch (e) {
          if (e === BREAK) return false;
          if (e !== CONTINUE) throw e;
        } finally {
          this.vars.length = mark;
          this.dotSlot = savedSlot;
        }
        return true;
      };
      let ran = false;
      if (Array.isArray(val)) {
        for (let i = 0; i < val.length; i++) {
          ran = true;
          if (!oneIteration(BigInt(i), val[i] as GoValue)) break;
        }
      } else if (integerValue(val) !== undefined) {
        // Go 1.22's range over an integer: 0…n-1, each of n's own type.
        if (decl.length > 1)
          this.errorf(`can't use ${formatValue(val as GoValue)} to iterate over more than one variable`);
        const n = integerValue(val)!;
        const typed = val instanceof GoSizedInt ? val.goType : undefined;
        for (let i = 0n; i < n; i++) {
          ran = true;
          if (!oneIteration(NO_VALUE, typed ? new GoSizedInt(typed, i) : i, false)) break;
        }
      } else if (val === NO_VALUE || val === null) {
        // An invalid value is likely a nil map, etc. and acts like an empty map.
      } else if (isGoMap(val)) {
        const keys = Object.keys(val).sort(compareStrings);
        for (const k of keys) {
          ran = true;
          if (!oneIteration(k, val[k] ?? null)) break;
        }
      } else if (isGoOpaque(val) && (val as GoObject).mapEntries !== undefined) {
        const m = (val as GoObject).mapEntries?.() ?? new Map<string, GoValue>();
        for (const k of [...m.keys()].sort(compareStrings)) {
          ran = true;
          if (!oneIteration(k, m.get(k) ?? null)) break;
        }
      } else if (typeof val === 'function') {
        ran = this.rangeFunc(val, decl.length, oneIteration);
      } else {
        this.errorf(`range can't iterate over ${formatValue(val)}`);
      }
      if (!ran && r.elseList) this.walk(dot, r.elseList);
    } finally {
      this.vars.length = outer;
    }
  }

  // Go 1.23 iterator functions: func(yield func(V) bool) / func(yield func(K, V) bool).
  private rangeFunc(fn: GoFunc, nvars: number, one: (i: Val, e: Val) => boolean): boolean {
    let ran = false;
    const yieldFn: GoFunc = (...a: GoValue[]) => {
      ran = true;
      if (a.length > 1) return one(a[0] ?? null, a[1] ?? null);
      if (nvars > 1) this.errorf(`can't use ${formatValue(fn)} to iterate over more than one variable`);
      return one(NO_VALUE, a[0] ?? null);
    };
    fn(yieldFn);
    return ran;
  }

  private walkTemplate(dot: Val, t: TemplateNode): void {
    this.at(t);
    const tree = this.env.lookup(t.name);
    if (tree === undefined) this.errorf(`template ${goQuote(t.name)} not defined`);
    if (this.depth >= maxExecDepth) this.errorf(`exceeded maximum template depth (${maxExecDepth})`);
    const newDot = this.evalPipeline(dot, t.pipe);
    const s = new State(this.env, t.name, this.depth + 1);
    s.vars.push({ name: '$', value: newDot });
    try {
      s.walk(newDot, tree.root);
    } catch (e) {
      // JavaScript's stack ends before Go's depth limit: report the runaway recursion as Go would.
      if (isStackOverflow(e)) {
        this.at(t);
        this.errorf(`exceeded maximum template depth (${maxExecDepth})`);
      }
      throw e;
    } finally {
      this.out += s.out;
    }
  }

  evalPipeline(dot: Val, pipe: PipeNode | null): Val {
    if (pipe === null) return NO_VALUE;
    this.at(pipe);
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd, value);
      // A nil interface{} becomes an invalid value (Go's "lovely" unwrap).
      if (value === null) value = NO_VALUE;
    }
    const v = value as Val;
    for (const variable of pipe.decl) {
      const name = variable.ident[0] ?? '';
      if (pipe.isAssign) this.setVar(name, v);
      else this.vars.push({ name, value: v });
    }
    return v;
  }

  private notAFunction(args: Node[], final: Final): void {
    if (args.length > 1 || final !== MISSING) {
      this.errorf(`can't give argument to non-function ${nodeString(args[0] as Node)}`);
    }
  }

  private evalCommand(dot: Val, cmd: CommandNode, final: Final): Val {
    const first = cmd.args[0] as Node;
    switch (first.type) {
      case 'field':
        return this.evalFieldNode(dot, first, cmd.args, final);
      case 'chain':
        return this.evalChainNode(dot, first, cmd.args, final);
      case 'identifier':
        return this.evalFunction(dot, first, cmd, cmd.args, final);
      case 'pipe':
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case 'variable':
        return this.evalVariableNode(dot, first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.type) {
      case 'bool':
        return first.value;
      case 'dot':
        return dot;
      case 'nil':
        this.errorf('nil is not a command');
        break;
      case 'number':
        return this.idealConstant(first);
      case 'string':
        return first.text;
    }
    this.errorf(`can't evaluate command ${goQuote(nodeString(first))}`);
  }

  private idealConstant(c: NumberNode): Val {
    this.at(c);
    const isHexInt =
      c.text.length > 2 && c.text[0] === '0' && /[xX]/.test(c.text[1] ?? '') && !/[pP]/.test(c.text);
    if (c.isFloat && !isHexInt && c.text[0] !== "'" && /[.eEpP]/.test(c.text)) return c.float;
    if (c.isInt) return c.int;
    if (c.isUint) this.errorf(`${c.text} overflows int`);
    return NO_VALUE;
  }

  private evalFieldNode(dot: Val, field: FieldNode, args: Node[], final: Final): Val {
    this.at(field);
    return this.evalFieldChain(dot, dot, this.dotSlot, field, field.ident, args, final);
  }

  private evalChainNode(dot: Val, chain: ChainNode, args: Node[], final: Final): Val {
    this.at(chain);
    if (chain.field.length === 0) this.errorf('internal error: no fields in evalChainNode');
    if (chain.node.type === 'nil') this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArgAny(dot, chain.node);
    return this.evalFieldChain(dot, pipe, false, chain, chain.field, args, final);
  }

  private evalVariableNode(dot: Val, v: VariableNode, args: Node[], final: Final): Val {
    this.at(v);
    const variable = this.variable(v.ident[0] ?? '');
    if (v.ident.length === 1) {
      this.notAFunction(args, final);
      return variable.value;
    }
    return this.evalFieldChain(dot, variable.value, variable.slot ?? false, v, v.ident.slice(1), args, final);
  }

  private evalFieldChain(
    dot: Val,
    receiver: Val,
    receiverSlot: boolean,
    node: Node,
    ident: string[],
    args: Node[],
    final: Final,
  ): Val {
    const n = ident.length;
    for (let i = 0; i < n - 1; i++) {
      receiver = this.evalField(dot, ident[i] ?? '', node, [], MISSING, receiver, i > 0 || receiverSlot);
    }
    return this.evalField(dot, ident[n - 1] ?? '', node, args, final, receiver, n > 1 || receiverSlot);
  }

  // fromSlot: the receiver was read out of a map (an interface{} slot), which Go names in errors.
  private evalField(
    dot: Val,
    fieldName: string,
    node: Node,
    args: Node[],
    final: Final,
    receiver: Val,
    fromSlot: boolean,
  ): Val {
    if (receiver === NO_VALUE || receiver === undefined) {
      if (this.env.missingKey === 'error') this.errorf(`nil data; no entry for key ${goQuote(fieldName)}`);
      return NO_VALUE;
    }
    const typ = fromSlot ? 'interface {}' : goTypeName(receiver);
    if (receiver === null) this.errorf(`nil pointer evaluating interface {}.${fieldName}`);
    const hasArgs = args.length > 1 || final !== MISSING;
    if (isGoOpaque(receiver)) {
      const obj = receiver as GoObject;
      const method = obj.getMethod?.(fieldName);
      if (method !== undefined) return this.evalCall(dot, method, false, node, fieldName, args, final);
      const f = obj.getField?.(fieldName);
      if (f !== undefined) {
        if (hasArgs) this.errorf(`${fieldName} has arguments but cannot be invoked as function`);
        return f;
      }
      this.errorf(`can't evaluate field ${fieldName} in type ${fromSlot ? typ : obj.goType}`);
    }
    if (isGoMap(receiver)) {
      if (hasArgs) this.errorf(`${fieldName} is not a method but has arguments`);
      const result = Object.prototype.hasOwnProperty.call(receiver, fieldName)
        ? receiver[fieldName]
        : undefined;
      if (result === undefined) {
        switch (this.env.missingKey) {
          case 'default':
            return NO_VALUE;
          case 'zero':
            return null;
          case 'error':
            this.errorf(`map has no entry for key ${goQuote(fieldName)}`);
        }
      }
      return result;
    }
    this.errorf(`can't evaluate field ${fieldName} in type ${typ}`);
  }

  private evalFunction(dot: Val, node: IdentifierNode, cmd: Node, args: Node[], final: Final): Val {
    this.at(node);
    const name = node.ident;
    const user = Object.prototype.hasOwnProperty.call(this.env.funcs, name)
      ? this.env.funcs[name]
      : undefined;
    if (user !== undefined) return this.evalCall(dot, user, false, cmd, name, args, final);
    if (BUILTINS.has(name)) return this.evalBuiltin(dot, cmd, name, args, final);
    this.errorf(`${goQuote(name)} is not a defined function`);
  }

  private evalCall(
    dot: Val,
    fn: GoFunc,
    _isBuiltin: boolean,
    node: Node,
    name: string,
    args: Node[],
    final: Final,
  ): Val {
    // The identifier (or method field) node: where Go reports argument-count errors.
    const callNode = this.node;
    const sig = (fn as { goSignature?: GoSignature }).goSignature;
    const argv: GoValue[] = [];
    if (sig === undefined) {
      for (let i = 1; i < args.length; i++) argv.push(toGo(this.evalArgAny(dot, args[i] as Node)));
      if (final !== MISSING) argv.push(toGo(final));
    } else {
      this.evalTypedArgs(dot, sig, name, args, final, argv);
    }
    let v: GoValue;
    try {
      v = fn.apply(this.env.thisArg, argv);
    } catch (e) {
      // A stack overflow is not the function's error: let it reach whoever turns it into Go's message.
      if (isStackOverflow(e)) throw e;
      if (isUnwrappedError(e)) {
        if (callNode !== null) this.at(callNode);
        this.errorf((e as Error).message);
      }
      this.at(node);
      this.errorf(`error calling ${name}: ${errMessage(e)}`);
    }
    return v === undefined ? null : v;
  }

  // Go's evalCall argument handling for a function with a declared signature.
  private evalTypedArgs(
    dot: Val,
    sig: GoSignature,
    name: string,
    args: Node[],
    final: Final,
    argv: GoValue[],
  ): void {
    const nargs = args.length - 1;
    const numIn = nargs + (final !== MISSING ? 1 : 0);
    const nParams = sig.params.length;
    if (sig.variadic !== undefined) {
      if (numIn < nParams)
        this.errorf(`wrong number of args for ${name}: want at least ${nParams} got ${nargs}`);
    } else if (numIn !== nParams) {
      this.errorf(`wrong number of args for ${name}: want ${nParams} got ${numIn}`);
    }
    const paramType = (i: number): string => sig.params[i] ?? sig.variadic ?? 'interface {}';
    for (let i = 0; i < nargs; i++) argv.push(this.evalArgTyped(dot, paramType(i), args[i + 1] as Node));
    if (final !== MISSING) argv.push(this.validateType(final, paramType(numIn - 1)));
  }

  /** Go's evalArg for a parameter of a basic type: literals are converted, values checked. */
  private evalArgTyped(dot: Val, typ: string, n: Node): GoValue {
    this.at(n);
    switch (n.type) {
      case 'dot':
      case 'field':
      case 'variable':
      case 'pipe':
      case 'identifier':
      case 'chain': {
        const v = this.evalArgAny(dot, n);
        return this.validateType(v, typ);
      }
      case 'nil':
        if (canBeNil(typ)) return null;
        this.errorf(`cannot assign nil to ${typ}`);
    }
    const found = nodeString(n);
    switch (typ) {
      case 'interface {}':
        return toGo(this.evalArgAny(dot, n));
      case 'bool':
        if (n.type === 'bool') return n.value;
        this.errorf(`expected bool; found ${found}`);
        break;
      case 'string':
        if (n.type === 'string') return n.text;
        this.errorf(`expected string; found ${found}`);
        break;
      case 'int':
        if (n.type === 'number' && n.isInt) return n.int;
        this.errorf(`expected integer; found ${found}`);
        break;
      case 'float64':
      case 'float32':
        if (n.type === 'number' && n.isFloat) return n.float;
        this.errorf(`expected float; found ${found}`);
    }
    if (isSizedIntType(typ)) {
      // A constant converts to the parameter's integer type, wrapping as Go's SetInt/SetUint do.
      if (typ.startsWith('u')) {
        if (n.type === 'number' && n.isUint) return new GoSizedInt(typ, n.uint);
        this.errorf(`expected unsigned integer; found ${found}`);
      }
      if (n.type === 'number' && n.isInt) return new GoSizedInt(typ, n.int);
      this.errorf(`expected integer; found ${found}`);
    }
    this.errorf(`can't handle ${found} for arg of type ${typ}`);
  }

  /** Go's validateType for the parameter types the value model can tell apart. */
  private validateType(v: Val, typ: string): GoValue {
    if (v === NO_VALUE || v === undefined) {
      if (canBeNil(typ)) return null;
      this.errorf(`invalid value; expected ${typ}`);
    }
    const got = v === null ? 'interface {}' : goTypeName(v);
    let ok: boolean;
    switch (typ) {
      case 'bool':
        ok = typeof v === 'boolean';
        break;
      case 'string':
        ok = typeof v === 'string';
        break;
      case 'int':
        ok = typeof v === 'bigint';
        break;
      case 'float64':
      case 'float32':
        ok = typeof v === 'number';
        break;
      case '[]interface {}':
        ok = v === null || Array.isArray(v);
        break;
      case 'map[string]interface {}':
        ok = v === null || isGoMap(v);
        break;
      default:
        // interface {} and named types the value model cannot check: the function checks them.
        ok = isSizedIntType(typ) ? v instanceof GoSizedInt && v.goType === typ : true;
    }
    if (!ok) this.errorf(`wrong type for value; expected ${typ}; got ${got}`);
    return v;
  }

  /** evalArg for an interface{} (or reflect.Value) parameter. */
  private evalArgAny(dot: Val, n: Node): Val {
    this.at(n);
    switch (n.type) {
      case 'dot':
        return dot;
      case 'nil':
        // Go passes the zero reflect.Value (builtins) or a nil interface (functions): both our NO_VALUE.
        return NO_VALUE;
      case 'field':
        return this.evalFieldNode(dot, n, [n], MISSING);
      case 'variable':
        return this.evalVariableNode(dot, n, [], MISSING);
      case 'pipe':
        return this.evalPipeline(dot, n);
      case 'identifier':
        return this.evalFunction(dot, n, n, [n], MISSING);
      case 'chain':
        return this.evalChainNode(dot, n, [], MISSING);
      case 'bool':
        return n.value;
      case 'number':
        return this.idealConstant(n);
      case 'string':
        return n.text;
    }
    this.errorf(`can't handle assignment of ${nodeString(n)} to empty interface argument`);
  }

  /** evalArg for a string parameter (printf's format). */
  private evalArgString(dot: Val, n: Node): string {
    this.at(n);
    switch (n.type) {
      case 'string':
        return n.text;
      case 'nil':
        this.errorf('cannot assign nil to string');
        break;
      case 'dot':
      case 'field':
      case 'variable':
      case 'pipe':
      case 'identifier':
      case 'chain': {
        const v = this.evalArgAny(dot, n);
        this.at(n);
        if (v === NO_VALUE) this.errorf('invalid value; expected string');
        if (typeof v !== 'string') this.errorf(`wrong type for value; expected string; got ${typeOf(v)}`);
        return v;
      }
    }
    this.errorf(`expected string; found ${nodeString(n)}`);
  }

  private evalBuiltin(dot: Val, node: Node, name: string, args: Node[], final: Final): Val {
    const nargs = args.length - 1 + (final !== MISSING ? 1 : 0);
    const want = (min: number, variadic: boolean): void => {
      if (variadic && nargs < min)
        this.errorf(`wrong number of args for ${name}: want at least ${min} got ${args.length - 1}`);
      if (!variadic && nargs !== min)
        this.errorf(`wrong number of args for ${name}: want ${min} got ${nargs}`);
    };
    const evalAll = (): Val[] => {
      const out: Val[] = [];
      for (let i = 1; i < args.length; i++) out.push(this.evalArgAny(dot, args[i] as Node));
      if (final !== MISSING) out.push(final);
      return out;
    };
    const fail = (msg: string): never => {
      this.at(node);
      this.errorf(`error calling ${name}: ${msg}`);
    };
    switch (name) {
      case 'and':
      case 'or': {
        want(1, true);
        let v: Val = NO_VALUE;
        for (let i = 1; i < args.length; i++) {
          v = this.evalArgAny(dot, args[i] as Node);
          if (truth(v) === (name === 'or')) return v;
        }
        if (final !== MISSING) v = final;
        return v;
      }
      case 'not': {
        want(1, false);
        return !truth(first(evalAll()));
      }
      case 'len': {
        want(1, false);
        const item = first(evalAll());
        if (item === null) fail('len of nil pointer');
        if (item === NO_VALUE) fail('reflect: call of reflect.Value.Type on zero Value');
        if (typeof item === 'string') return BigInt(Buffer.byteLength(item, 'utf8'));
        if (Array.isArray(item)) return BigInt(item.length);
        if (isGoMap(item)) return BigInt(Object.keys(item).length);
        const entries = isGoOpaque(item) ? (item as GoObject).mapEntries?.() : undefined;
        if (entries !== undefined) return BigInt(entries.size);
        return fail(`len of type ${typeOf(item)}`);
      }
      case 'index': {
        want(1, true);
        const [item, ...indexes] = evalAll();
        return this.index(item === undefined ? NO_VALUE : item, indexes, fail);
      }
      case 'slice': {
        want(1, true);
        const [item, ...indexes] = evalAll();
        return this.slice(item === undefined ? NO_VALUE : item, indexes, fail);
      }
      case 'print':
        return sprint(evalAll().map(toGo));
      case 'println':
        return sprintln(evalAll().map(toGo));
      case 'printf': {
        want(1, true);
        let format: string;
        const rest: GoValue[] = [];
        if (args.length > 1) {
          format = this.evalArgString(dot, args[1] as Node);
          for (let i = 2; i < args.length; i++) rest.push(toGo(this.evalArgAny(dot, args[i] as Node)));
          if (final !== MISSING) rest.push(toGo(final));
        } else {
          if (typeof final !== 'string') {
            this.at(node);
            if (final === NO_VALUE) this.errorf('invalid value; expected string');
            this.errorf(`wrong type for value; expected string; got ${typeOf(final as Val)}`);
          }
          format = final;
        }
        return sprintf(format, rest);
      }
      case 'html':
        return htmlEscape(evalArgs(evalAll()));
      case 'js':
        return jsEscape(evalArgs(evalAll()));
      case 'urlquery':
        return urlQueryEscape(evalArgs(evalAll()));
      case 'call': {
        want(1, true);
        const calleeName = nodeString(args[1] ?? node);
        const [fn, ...rest] = evalAll();
        if (fn === NO_VALUE || fn === null || fn === undefined) return fail('call of nil');
        if (typeof fn !== 'function') return fail(`non-function ${calleeName} of type ${typeOf(fn)}`);
        try {
          const r = fn.apply(this.env.thisArg, rest.map(toGo));
          return r === undefined ? null : r;
        } catch (e) {
          return fail(errMessage(e));
        }
      }
      case 'eq': {
        want(1, true);
        const [a, ...rest] = evalAll();
        try {
          return eq(a === undefined ? NO_VALUE : a, rest);
        } catch (e) {
          return fail(errMessage(e));
        }
      }
      case 'ne':
      case 'lt':
      case 'le':
      case 'gt':
      case 'ge': {
        want(2, false);
        const [a, b] = evalAll() as [Val, Val];
        try {
          switch (name) {
            case 'ne':
              return !eq(a, [b]);
            case 'lt':
              return lt(a, b);
            case 'le':
              return lt(a, b) || eq(a, [b]);
            case 'gt':
              return !(lt(a, b) || eq(a, [b]));
            default:
              return !lt(a, b);
          }
        } catch (e) {
          return fail(errMessage(e));
        }
      }
    }
    this.errorf(`${goQuote(name)} is not a defined function`);
  }

  private index(item: Val, indexes: Val[], fail: (m: string) => never): Val {
    if (item === NO_VALUE || item === null) fail('index of untyped nil');
    let cur: Val = item;
    for (const idx of indexes) {
      if (cur === null) fail('index of nil pointer');
      if (Array.isArray(cur) || typeof cur === 'string') {
        const len: number = typeof cur === 'string' ? Buffer.byteLength(cur, 'utf8') : cur.length;
        const x = indexArg(idx, len, fail);
        if (x === len)
          fail(
            typeof cur === 'string'
              ? 'reflect: string index out of range'
              : 'reflect: slice index out of range',
          );
        if (typeof cur === 'string') cur = BigInt(Buffer.from(cur, 'utf8')[x] ?? 0);
        else cur = cur[x] ?? null;
      } else if (isGoMap(cur)) {
        if (idx === NO_VALUE || idx === null) fail('value is nil; should be of type string');
        if (typeof idx !== 'string') fail(`value has type ${typeOf(idx)}; should be string`);
        const m: Record<string, GoValue> = cur;
        cur = Object.prototype.hasOwnProperty.call(m, idx) ? (m[idx] ?? null) : null;
      } else if (isGoOpaque(cur) && (cur as GoObject).mapEntries !== undefined) {
        const obj = cur as GoObject;
        if (idx === NO_VALUE || idx === null) fail('value is nil; should be of type string');
        if (typeof idx !== 'string') fail(`value has type ${typeOf(idx)}; should be string`);
        cur = obj.mapEntries?.().get(idx) ?? obj.mapZero ?? null;
      } else {
        fail(`can't index item of type ${typeOf(cur)}`);
      }
    }
    return cur;
  }

  private slice(item: Val, indexes: Val[], fail: (m: string) => never): Val {
    if (item === NO_VALUE || item === null) fail('slice of untyped nil');
    if (indexes.length > 3) fail(`too many slice indexes: ${indexes.length}`);
    let cap: number;
    if (typeof item === 'string') {
      if (indexes.length === 3) fail('cannot 3-index slice a string');
      cap = Buffer.byteLength(item, 'utf8');
    } else if (Array.isArray(item)) {
      cap = item.length;
    } else {
      return fail(`can't slice item of type ${typeOf(item)}`);
    }
    const idx = [0, cap, cap];
    indexes.forEach((v, i) => {
      idx[i] = indexArg(v, cap, fail);
    });
    const [i0, i1, i2] = idx as [number, number, number];
    if (i0 > i1) fail(`invalid slice index: ${i0} > ${i1}`);
    if (indexes.length === 3 && i1 > i2) fail(`invalid slice index: ${i1} > ${i2}`);
    if (typeof item === 'string') return Buffer.from(item, 'utf8').subarray(i0, i1).toString('utf8');
    return item.slice(i0, i1);
  }

  private printValue(n: Node, v: Val): void {
    this.at(n);
    if (v === NO_VALUE || v === null) {
      this.out += '<no value>';
      return;
    }
    if (typeof v === 'function') this.errorf(`can't print ${nodeString(n)} of type ${goTypeName(v)}`);
    if (isGoOpaque(v) && v.templateText) this.out += v.templateText();
    else this.out += typeof v === 'string' ? v : formatValue(v);
  }
}

function first(vs: Val[]): Val {
  const v = vs[0];
  return v === undefined ? NO_VALUE : v;
}

function indexArg(v: Val, cap: number, fail: (m: string) => never): number {
  if (v === NO_VALUE || v === null) fail('cannot index slice/array with nil');
  const i = integerValue(v);
  if (i === undefined) return fail(`cannot index slice/array with type ${typeOf(v)}`);
  if (i < 0n || i > BigInt(cap)) fail(`index out of range: ${i}`);
  return Number(i);
}

type Kind = 'invalid' | 'bool' | 'int' | 'uint' | 'float' | 'string';

function basicKind(v: Val): Kind {
  if (v instanceof GoSizedInt) return v.unsigned ? 'uint' : 'int';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'float';
    case 'string':
      return 'string';
  }
  return 'invalid';
}

function isNilish(v: Val): boolean {
  return v === NO_VALUE || v === null || v === undefined;
}

/** Go's eq: arg1 == any of arg2, with Go's basic-kind rules. */
function eq(a: Val, rest: Val[]): boolean {
  if (rest.length === 0) throw new Error('missing argument for comparison');
  const k1 = basicKind(a);
  for (const b of rest) {
    const k2 = basicKind(b);
    let t = false;
    if (isIntKind(k1) && isIntKind(k2)) {
      // Integers compare by value whatever their type or sign (Go's intKind/uintKind special case).
      t = integerValue(a) === integerValue(b);
    } else if (k1 !== k2) {
      if (!isNilish(a) && !isNilish(b)) throw incompatible(a, b);
    } else if (k1 !== 'invalid') {
      t = a === b;
    } else {
      // Neither is a basic kind: nil compares with nil; maps, slices and funcs are not comparable.
      if (isNilish(a) || isNilish(b)) t = isNilish(a) === isNilish(b);
      else if (isGoOpaque(a) && isGoOpaque(b)) t = a === b;
      else {
        const ta = typeOf(a);
        const tb = typeOf(b);
        if (ta !== tb)
          throw new Error(
            `non-comparable types ${formatValue(toGo(a))}: ${ta}, ${tb}: ${formatValue(toGo(b))}`,
          );
        throw new Error(`non-comparable type ${formatValue(toGo(b))}: ${tb}`);
      }
    }
    if (t) return true;
  }
  return false;
}

function incompatible(a: Val, b: Val): Error {
  return new Error(`incompatible types for comparison: ${typeOf(a)} and ${typeOf(b)}`);
}

function lt(a: Val, b: Val): boolean {
  const k1 = basicKind(a);
  if (k1 === 'invalid') throw new Error('invalid type for comparison');
  const k2 = basicKind(b);
  if (k2 === 'invalid') throw new Error('invalid type for comparison');
  if (isIntKind(k1) && isIntKind(k2)) return integerValue(a)! < integerValue(b)!;
  if (k1 !== k2) throw incompatible(a, b);
  if (k1 === 'bool') throw new Error('invalid type for comparison');
  if (k1 === 'string') return compareStrings(a as string, b as string) < 0;
  return (a as number) < (b as number);
}

function isIntKind(k: Kind): boolean {
  return k === 'int' || k === 'uint';
}

/** Go compares strings bytewise (UTF-8), which for JS strings means by code point. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) {
      // Surrogates (astral code points) sort above the BMP in UTF-8 order.
      const sa = ca >= 0xd800 && ca < 0xe000 ? ca + 0x10000 : ca;
      const sb = cb >= 0xd800 && cb < 0xe000 ? cb + 0x10000 : cb;
      return sa - sb;
    }
  }
  return a.length - b.length;
}

// Go's evalArgs for html/js/urlquery: fmt.Sprint, but nil prints as "<no value>".
function evalArgs(args: Val[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args.map((a) => (a === NO_VALUE || a === null ? '<no value>' : a)));
}

export function htmlEscape(s: string): string {
  return s.replace(/["'&<>\0]/g, (c) => {
    switch (c) {
      case '"':
        return '&#34;';
      case "'":
        return '&#39;';
      case '&':
        return '&amp;';
      case '<':
        return '&lt;';
      case '>':
        return '&gt;';
      default:
        return '\uFFFD';
    }
  });
}

export function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '\\':
        out += '\\\\';
        continue;
      case "'":
        out += "\\'";
        continue;
      case '"':
        out += '\\"';
        continue;
      case '<':
        out += '\\u003C';
        continue;
      case '>':
        out += '\\u003E';
        continue;
      case '&':
        out += '\\u0026';
        continue;
      case '=':
        out += '\\u003D';
        continue;
    }
    if (c < 0x20) out += '\\u00' + c.toString(16).toUpperCase().padStart(2, '0');
    else if (c >= 0x80 && !/[\p{L}\p{M}\p{N}\p{P}\p{S}]/u.test(ch))
      out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
    else out += ch;
  }
  return out;
}

/** url.QueryEscape. */
export function urlQueryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}
