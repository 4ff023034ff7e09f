// sprig's reflection (typeOf, kindOf, typeIs…, deepEqual) and path functions (Go's path and,
// on Linux, path/filepath: Base, Dir, Clean, Ext, IsAbs).

import type { GoFunc } from '../value.js';
import { argString, arity, kindName, typeNameOf } from './cast.js';
import { deepEqual } from './collections.js';

/** path.Clean. */
export function pathClean(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else if (!rooted) parts.push('..');
      continue;
    }
    parts.push(seg);
  }
  const out = (rooted ? '/' : '') + parts.join('/');
  return out === '' ? '.' : out;
}

/** path.Base. */
export function pathBase(p: string): string {
  if (p === '') return '.';
  let s = p.replace(/\/+$/, '');
  if (s === '') return '/';
  const i = s.lastIndexOf('/');
  if (i >= 0) s = s.slice(i + 1);
  return s;
}

/** path.Dir. */
export function pathDir(p: string): string {
  const i = p.lastIndexOf('/');
  return pathClean(p.slice(0, i + 1));
}

/** path.Ext. */
export function pathExt(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) {
    if (p[i] === '.') return p.slice(i);
  }
  return '';
}

export function reflectFunctions(): Record<string, GoFunc> {
  const one =
    (name: string, f: (s: string) => string | boolean): GoFunc =>
    (...a) => {
      arity(name, a, 1);
      return f(argString(a[0]));
    };
  return {
    typeOf: (...a) => {
      arity('typeOf', a, 1);
      return typeNameOf(a[0]);
    },
    typeIs: (...a) => {
      arity('typeIs', a, 2);
      return argString(a[0]) === typeNameOf(a[1]);
    },
    typeIsLike: (...a) => {
      arity('typeIsLike', a, 2);
      const target = argString(a[0]);
      const t = typeNameOf(a[1]);
      return target === t || '*' + target === t;
    },
    kindOf: (...a) => {
      arity('kindOf', a, 1);
      return kindName(a[0]);
    },
    kindIs: (...a) => {
      arity('kindIs', a, 2);
      return argString(a[0]) === kindName(a[1]);
    },
    deepEqual: (...a) => {
      arity('deepEqual', a, 2);
      return deepEqual(a[0], a[1]);
    },
    base: one('base', pathBase),
    dir: one('dir', pathDir),
    clean: one('clean', pathClean),
    ext: one('ext', pathExt),
    isAbs: one('isAbs', (s) => s.startsWith('/')),
    osBase: one('osBase', pathBase),
    osDir: one('osDir', pathDir),
    osClean: one('osClean', pathClean),
    osExt: one('osExt', pathExt),
    osIsAbs: one('osIsAbs', (s) => s.startsWith('/')),
  };
}
