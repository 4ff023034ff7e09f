// Lexer for Go text/template source: turns template text into the item stream Go's
// text/template/parse lexer produces (same item kinds, trim-marker and comment rules, errors).

export const enum ItemType {
  Error,
  Bool,
  Char,
  CharConstant,
  Comment,
  Complex,
  Assign,
  Declare,
  EOF,
  Field,
  Identifier,
  LeftDelim,
  LeftParen,
  Number,
  Pipe,
  RawString,
  RightDelim,
  RightParen,
  Space,
  String,
  Text,
  Variable,
  // Keywords come after all the above (Go prints them as <name>).
  Keyword,
  Block,
  Break,
  Continue,
  Dot,
  Define,
  Else,
  End,
  If,
  Range,
  Nil,
  Template,
  With,
}

export interface Item {
  typ: ItemType;
  pos: number;
  val: string;
  line: number;
}

const keywords: Record<string, ItemType> = {
  '.': ItemType.Dot,
  block: ItemType.Block,
  break: ItemType.Break,
  continue: ItemType.Continue,
  define: ItemType.Define,
  else: ItemType.Else,
  end: ItemType.End,
  if: ItemType.If,
  range: ItemType.Range,
  nil: ItemType.Nil,
  template: ItemType.Template,
  with: ItemType.With,
};

/** Go's %q of a string, enough for item descriptions in error messages. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c === 7) out += '\\a';
    else if (c === 8) out += '\\b';
    else if (c === 12) out += '\\f';
    else if (c === 11) out += '\\v';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + '"';
}

/** How Go's parser prints an item in "unexpected X in Y" messages. */
export function itemString(i: Item): string {
  if (i.typ === ItemType.EOF) return 'EOF';
  if (i.typ === ItemType.Error) return i.val;
  if (i.typ > ItemType.Keyword) return `<${i.val}>`;
  if (i.val.length > 10) return goQuote(i.val).slice(0, 11) + '...';
  return goQuote(i.val);
}

const leftComment = '/*';
const rightComment = '*/';
const trimMarkerLen = 2;

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

function isAlphaNumeric(c: string | undefined): boolean {
  if (c === undefined || c === '') return false;
  const code = c.charCodeAt(0);
  if (code < 0x80) {
    return (
      code === 95 || (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
    );
  }
  return /^[\p{L}\p{Nd}]$/u.test(c);
}

function leftTrimLength(s: string, from = 0): number {
  let i = from;
  while (i < s.length && isSpace(s[i])) i++;
  return i - from;
}

function rightTrimLength(s: string): number {
  let i = s.length;
  while (i > 0 && isSpace(s[i - 1])) i--;
  return s.length - i;
}

function hasLeftTrimMarker(s: string, at: number): boolean {
  return s[at] === '-' && isSpace(s[at + 1]);
}

function hasRightTrimMarker(s: string, at: number): boolean {
  return isSpace(s[at]) && s[at + 1] === '-';
}

/**
 * Lex the whole input eagerly (Go lexes lazily, but the item stream is identical). The stream ends
 * with an EOF item or an Error item, as in Go.
 */
export function lex(input: string, leftDelim = '{{', rightDelim = '}}'): Item[] {
  const items: Item[] = [];
  let pos = 0;
  let start = 0;
  let line = 1;
  let startLine = 1;
  let parenDepth = 0;
  let done = false;

  const emit = (typ: ItemType): void => {
    items.push({ typ, pos: start, val: input.slice(start, pos), line: startLine });
    start = pos;
    startLine = line;
  };
  const ignore = (): void => {
    line += countNL(input.slice(start, pos));
    start = pos;
    startLine = line;
  };
  const errorf = (msg: string): void => {
    items.push({ typ: ItemType.Error, pos: start, val: msg, line: startLine });
    done = true;
  };
  // next/backup work on UTF-16 code units except for the few places that need a full rune.
  const next = (): string | undefined => {
    if (pos >= input.length) {
      pos++;
      return undefined;
    }
    const code = input.charCodeAt(pos);
    // Fast path: anything but a surrogate pair is one UTF-16 unit.
    const ch =
      code < 0xd800 || code > 0xdbff
        ? (input[pos] as string)
        : String.fromCodePoint(input.codePointAt(pos) ?? 0);
    pos += ch.length;
    if (ch === '\n') line++;
    return ch;
  };
  const backup = (ch: string | undefined): void => {
    if (ch === undefined) {
      pos--;
      return;
    }
    pos -= ch.length;
    if (ch === '\n') line--;
  };
  const peek = (): string | undefined => {
    if (pos >= input.length) return undefined;
    const code = input.charCodeAt(pos);
    return code < 0xd800 || code > 0xdbff ? input[pos] : String.fromCodePoint(input.codePointAt(pos) ?? 0);
  };
  const accept = (valid: string): boolean => {
    const c = next();
    if (c !== undefined && valid.includes(c)) return true;
    backup(c);
    return false;
  };
  const acceptRun = (valid: string): void => {
    for (;;) {
      const c = next();
      if (c === undefined || !valid.includes(c)) {
        backup(c);
        return;
      }
    }
  };
  const atRightDelim = (): { delim: boolean; trim: boolean } => {
    if (hasRightTrimMarker(input, pos) && input.startsWith(rightDelim, pos + trimMarkerLen))
      return { delim: true, trim: true };
    if (input.startsWith(rightDelim, pos)) return { delim: true, trim: false };
    return { delim: false, trim: false };
  };

  type State = (() => State) | null;

  const lexText = (): State => {
    const x = input.indexOf(leftDelim, pos);
    if (x >= 0) {
      if (x > pos) {
        pos = x;
        let trimLength = 0;
        const delimEnd = pos + leftDelim.length;
        if (hasLeftTrimMarker(input, delimEnd)) trimLength = rightTrimLength(input.slice(start, pos));
        pos -= trimLength;
        const val = input.slice(start, pos);
        line += countNL(val);
        const item: Item = { typ: ItemType.Text, pos: start, val, line: startLine };
        start = pos;
        startLine = line;
        pos += trimLength;
        ignore();
        if (val.length > 0) items.push(item);
      }
      return lexLeftDelim;
    }
    pos = input.length;
    if (pos > start) {
      line += countNL(input.slice(start, pos));
      items.push({ typ: ItemType.Text, pos: start, val: input.slice(start, pos), line: startLine });
      start = pos;
      startLine = line;
    }
    emit(ItemType.EOF);
    return null;
  };

  const lexLeftDelim = (): State => {
    pos += leftDelim.length;
    const trim = hasLeftTrimMarker(input, pos);
    const afterMarker = trim ? trimMarkerLen : 0;
    if (input.startsWith(leftComment, pos + afterMarker)) {
      pos += afterMarker;
      ignore();
      return lexComment;
    }
    const item: Item = { typ: ItemType.LeftDelim, pos: start, val: input.slice(start, pos), line: startLine };
    start = pos;
    pos += afterMarker;
    ignore();
    parenDepth = 0;
    items.push(item);
    return lexInsideAction;
  };

  const lexComment = (): State => {
    pos += leftComment.length;
    const x = input.indexOf(rightComment, pos);
    if (x < 0) {
      errorf('unclosed comment');
      return null;
    }
    pos = x + rightComment.length;
    const { delim, trim } = atRightDelim();
    if (!delim) {
      errorf('comment ends before closing delimiter');
      return null;
    }
    if (trim) pos += trimMarkerLen;
    pos += rightDelim.length;
    if (trim) pos += leftTrimLength(input, pos);
    ignore();
    return lexText;
  };

  const lexRightDelim = (): State => {
    const { trim } = atRightDelim();
    if (trim) {
      pos += trimMarkerLen;
      ignore();
    }
    pos += rightDelim.length;
    const item: Item = {
      typ: ItemType.RightDelim,
      pos: start,
      val: input.slice(start, pos),
      line: startLine,
    };
    start = pos;
    if (trim) {
      pos += leftTrimLength(input, pos);
    }
    ignore();
    items.push(item);
    return lexText;
  };

  const lexInsideAction = (): State => {
    const { delim } = atRightDelim();
    if (delim) {
      if (parenDepth === 0) return lexRightDelim;
      errorf('unclosed left paren');
      return null;
    }
    const r = next();
    if (r === undefined) {
      errorf('unclosed action');
      return null;
    }
    if (isSpace(r)) {
      backup(r);
      return lexSpace;
    }
    if (r === '=') {
      emit(ItemType.Assign);
      return lexInsideAction;
    }
    if (r === ':') {
      if (next() !== '=') {
        errorf('expected :=');
        return null;
      }
      emit(ItemType.Declare);
      return lexInsideAction;
    }
    if (r === '|') {
      emit(ItemType.Pipe);
      return lexInsideAction;
    }
    if (r === '"') return lexQuote;
    if (r === '`') return lexRawQuote;
    if (r === '$') return lexVariable;
    if (r === "'") return lexChar;
    if (r === '.') {
      if (pos < input.length) {
        const c = input[pos] ?? '';
        if (c < '0' || c > '9') return lexField;
      }
      backup(r);
      return lexNumber;
    }
    if (r === '+' || r === '-' || (r >= '0' && r <= '9')) {
      backup(r);
      return lexNumber;
    }
    if (isAlphaNumeric(r)) {
      backup(r);
      return lexIdentifier;
    }
    if (r === '(') {
      emit(ItemType.LeftParen);
      parenDepth++;
      return lexInsideAction;
    }
    if (r === ')') {
      parenDepth--;
      if (parenDepth < 0) {
        errorf('unexpected right paren');
        return null;
      }
      emit(ItemType.RightParen);
      return lexInsideAction;
    }
    const cp = r.codePointAt(0) ?? 0;
    if (cp <= 0x7f && cp >= 0x20 && cp !== 0x7f) {
      emit(ItemType.Char);
      return lexInsideAction;
    }
    errorf(`unrecognized character in action: ${goUnicode(cp)}`);
    return null;
  };

  const lexSpace = (): State => {
    let numSpaces = 0;
    for (;;) {
      const r = peek();
      if (!isSpace(r)) break;
      next();
      numSpaces++;
    }
    if (hasRightTrimMarker(input, pos - 1) && input.startsWith(rightDelim, pos - 1 + trimMarkerLen)) {
      backup(input[pos - 1]);
      if (numSpaces === 1) return lexRightDelim;
    }
    emit(ItemType.Space);
    return lexInsideAction;
  };

  const lexIdentifier = (): State => {
    for (;;) {
      const r = next();
      if (isAlphaNumeric(r)) continue;
      backup(r);
      const word = input.slice(start, pos);
      if (!atTerminator()) {
        errorf(`bad character ${goUnicode(r?.codePointAt(0) ?? 0)}`);
        return null;
      }
      const kw = keywords[word];
      if (kw !== undefined && kw > ItemType.Keyword) emit(kw);
      else if (word[0] === '.') emit(ItemType.Field);
      else if (word === 'true' || word === 'false') emit(ItemType.Bool);
      else emit(ItemType.Identifier);
      return lexInsideAction;
    }
  };

  const lexField = (): State => lexFieldOrVariable(ItemType.Field);
  const lexVariable = (): State => lexFieldOrVariable(ItemType.Variable);

  const lexFieldOrVariable = (typ: ItemType): State => {
    if (atTerminator()) {
      if (typ === ItemType.Variable) emit(ItemType.Variable);
      else emit(ItemType.Dot);
      return lexInsideAction;
    }
    let r: string | undefined;
    for (;;) {
      r = next();
      if (!isAlphaNumeric(r)) {
        backup(r);
        break;
      }
    }
    if (!atTerminator()) {
      errorf(`bad character ${goUnicode(r?.codePointAt(0) ?? 0)}`);
      return null;
    }
    emit(typ);
    return lexInsideAction;
  };

  const atTerminator = (): boolean => {
    const r = peek();
    if (r === undefined || isSpace(r)) return true;
    if ('.,|:)('.includes(r)) return true;
    return input.startsWith(rightDelim, pos);
  };

  const lexChar = (): State => {
    for (;;) {
      let r = next();
      if (r === '\\') {
        r = next();
        if (r !== undefined && r !== '\n') continue;
      }
      if (r === undefined || r === '\n') {
        errorf('unterminated character constant');
        return null;
      }
      if (r === "'") break;
    }
    emit(ItemType.CharConstant);
    return lexInsideAction;
  };

  const lexNumber = (): State => {
    if (!scanNumber()) {
      errorf(`bad number syntax: ${goQuote(input.slice(start, pos))}`);
      return null;
    }
    const sign = peek();
    if (sign === '+' || sign === '-') {
      if (!scanNumber() || input[pos - 1] !== 'i') {
        errorf(`bad number syntax: ${goQuote(input.slice(start, pos))}`);
        return null;
      }
      emit(ItemType.Complex);
      return lexInsideAction;
    }
    emit(ItemType.Number);
    return lexInsideAction;
  };

  const scanNumber = (): boolean => {
    accept('+-');
    let digits = '0123456789_';
    if (accept('0')) {
      if (accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (accept('oO')) digits = '01234567_';
      else if (accept('bB')) digits = '01_';
    }
    acceptRun(digits);
    if (accept('.')) acceptRun(digits);
    if (digits.length === 11 && accept('eE')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    if (digits.length === 23 && accept('pP')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    accept('i');
    if (isAlphaNumeric(peek())) {
      next();
      return false;
    }
    return true;
  };

  const lexQuote = (): State => {
    for (;;) {
      let r = next();
      if (r === '\\') {
        r = next();
        if (r !== undefined && r !== '\n') continue;
      }
      if (r === undefined || r === '\n') {
        errorf('unterminated quoted string');
        return null;
      }
      if (r === '"') break;
    }
    emit(ItemType.String);
    return lexInsideAction;
  };

  const lexRawQuote = (): State => {
    for (;;) {
      const r = next();
      if (r === undefined) {
        errorf('unterminated raw quoted string');
        return null;
      }
      if (r === '`') break;
    }
    emit(ItemType.RawString);
    return lexInsideAction;
  };

  let state: State = lexText;
  while (state !== null && !done) state = state();
  return items;
}

function countNL(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** Go's %#U: U+0041 'A'. */
function goUnicode(cp: number): string {
  const hex = 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
  const ch = String.fromCodePoint(cp);
  return /\p{L}|\p{N}|\p{P}|\p{S}/u.test(ch) ? `${hex} '${ch}'` : hex;
}
