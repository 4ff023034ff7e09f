// Public API of the Go template engine: a set of named templates parsed once and executed many times,
// like Go's template.New(…).Funcs(…).Option(…).Parse(…) with ExecuteTemplate, AddParseTree and Clone.

import { type ExecEnv, type MissingKeyMode, executeTree, isBuiltin } from './exec.js';
import { goQuote } from './lex.js';
import { type Tree, isEmptyTree, parse } from './parse.js';
import type { GoFunc, GoValue } from './value.js';

export {
  NO_VALUE,
  GoFuncError,
  TemplateExecError,
  isTrue,
  withSignature,
  type GoObject,
  type GoSignature,
  type MissingKeyMode,
} from './exec.js';
export { TemplateParseError, type Tree } from './parse.js';

export interface TemplateOptions {
  /**
   * Extra functions (sprig, helm's include/tpl…). They must be known before parsing, as in Go. They
   * are called with `this` bound to the TemplateSet executing (an overlay inside executeString), so
   * include/tpl written as `function (this: TemplateSet, …)` see the templates a tpl text defines.
   */
  funcs?: Record<string, GoFunc>;
  /** Go's missingkey option: 'default' (`<no value>`), 'zero' (helm) or 'error' (Sveltos). */
  missingKey?: MissingKeyMode;
  leftDelim?: string;
  rightDelim?: string;
  /** The receiver's own name (Go's template.New(name)), as "no template … associated with" names it. */
  name?: string;
}

/**
 * A set of associated templates (Go's *template.Template with its common map). Parse adds templates;
 * execution never parses again, so one set serves any number of executions (also concurrently).
 */
export class TemplateSet {
  private readonly trees = new Map<string, Tree>();
  private readonly funcs: Record<string, GoFunc>;
  missingKey: MissingKeyMode;
  leftDelim: string;
  rightDelim: string;
  private readonly parent: TemplateSet | null;
  // The name of the first template parsed: Go's receiver name in "no template … associated with …".
  private rootName: string | undefined;

  constructor(opts: TemplateOptions = {}, parent: TemplateSet | null = null) {
    this.funcs = { ...(opts.funcs ?? {}) };
    this.missingKey = opts.missingKey ?? 'default';
    this.leftDelim = opts.leftDelim || '{{';
    this.rightDelim = opts.rightDelim || '}}';
    this.parent = parent;
    this.rootName = opts.name;
  }

  /** Go's Funcs: add or replace functions (affects later parses and all executions). */
  addFuncs(funcs: Record<string, GoFunc>): this {
    Object.assign(this.funcs, funcs);
    return this;
  }

  /**
   * Parse `text` as template `name` (Go's t.New(name).Parse(text)) and add it and its defines to the
   * set. A template redefined by a later parse replaces the earlier one, unless the new body is empty.
   * Throws TemplateParseError with Go's wording.
   */
  parse(name: string, text: string): this {
    this.rootName ??= name;
    const trees = parse(name, text, {
      leftDelim: this.leftDelim,
      rightDelim: this.rightDelim,
      hasFunction: (f) => this.hasFunction(f),
    });
    for (const [n, tree] of trees) this.addParseTree(n, tree);
    return this;
  }

  /** Go's AddParseTree (with associate's rule: an empty tree does not replace a defined one). */
  addParseTree(name: string, tree: Tree): this {
    const old = this.trees.get(name);
    if (old !== undefined && isEmptyTree(tree.root) && !isEmptyTree(old.root)) return this;
    this.trees.set(name, tree);
    return this;
  }

  hasFunction(name: string): boolean {
    return (
      Object.prototype.hasOwnProperty.call(this.funcs, name) ||
      isBuiltin(name) ||
      (this.parent?.hasFunction(name) ?? false)
    );
  }

  /** The parsed tree of a template, looking through to the parent set of an overlay. */
  lookup(name: string): Tree | undefined {
    return this.trees.get(name) ?? this.parent?.lookup(name);
  }

  /** Names of the templates in this set (not the parent's), in insertion order. */
  names(): string[] {
    return [...this.trees.keys()];
  }

  /**
   * Execute the template `name` with `data` as dot and `$` (Go's ExecuteTemplate). Throws
   * TemplateExecError with Go's wording.
   */
  execute(name: string, data: GoValue, opts: { missingKey?: MissingKeyMode } = {}): string {
    const tree = this.lookup(name);
    if (tree === undefined) {
      throw new Error(
        `template: no template ${goQuote(name)} associated with template ${goQuote(this.firstName() ?? name)}`,
      );
    }
    const env: ExecEnv = {
      lookup: (n) => this.lookup(n),
      funcs: this.allFuncs(),
      missingKey: opts.missingKey ?? this.missingKey,
      thisArg: this,
    };
    return executeTree(env, name, tree, data);
  }

  /**
   * Parse `text` as template `name` in a throwaway overlay of this set and execute it (helm's `tpl`):
   * it sees every template of the set, and its own defines do not leak into the set.
   */
  executeString(
    name: string,
    text: string,
    data: GoValue,
    opts: { missingKey?: MissingKeyMode } = {},
  ): string {
    const overlay = this.overlay();
    overlay.parse(name, text);
    return overlay.execute(name, data, { missingKey: opts.missingKey ?? this.missingKey });
  }

  /** A child set that sees this set's templates and functions; what it parses stays in it. */
  overlay(): TemplateSet {
    return new TemplateSet(
      { missingKey: this.missingKey, leftDelim: this.leftDelim, rightDelim: this.rightDelim },
      this,
    );
  }

  /** Go's Clone: an independent copy (trees are immutable, so they are shared). */
  clone(): TemplateSet {
    const c = new TemplateSet(
      {
        funcs: this.allFuncs(),
        missingKey: this.missingKey,
        leftDelim: this.leftDelim,
        rightDelim: this.rightDelim,
      },
      null,
    );
    for (const [n, t] of this.allTrees()) c.trees.set(n, t);
    return c;
  }

  private firstName(): string | undefined {
    return this.rootName ?? this.trees.keys().next().value ?? this.parent?.firstName();
  }

  private allFuncs(): Record<string, GoFunc> {
    return this.parent ? { ...this.parent.allFuncs(), ...this.funcs } : this.funcs;
  }

  private allTrees(): Map<string, Tree> {
    const m = this.parent ? this.parent.allTrees() : new Map<string, Tree>();
    for (const [n, t] of this.trees) m.set(n, t);
    return m;
  }
}

/** Parse one template text into a new set (Go's template.New(name).Funcs(…).Option(…).Parse(text)). */
export function parseTemplate(name: string, text: string, opts: TemplateOptions = {}): TemplateSet {
  return new TemplateSet(opts).parse(name, text);
}
