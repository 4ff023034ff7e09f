// The sprig function map as helm 4.1.4 ships it (Masterminds/sprig v3.3), minus what helm removes
// (env, expandenv) and what helm or the fmt/yaml module define (toYaml, toJson, include, tpl …).

import type { GoFunc } from '../value.js';
import { arity } from './cast.js';
import { certFunctions } from './certs.js';
import { collectionFunctions } from './collections.js';
import { cryptoFunctions } from './crypto.js';
import { dateFunctions } from './dates.js';
import { mathFunctions } from './math.js';
import { reflectFunctions } from './reflect.js';
import { regexFunctions } from './regex.js';
import { semverFunctions } from './semver.js';
import { stringFunctions } from './strings.js';
import { urlFunctions } from './url.js';

export { GoArgTypeError, formatGo, tagMap, tagSlice, toFloat64, toInt64, strval } from './cast.js';
export { GoRegexpError, UnsupportedRegexpError } from './regex.js';
export { SemverConstraints, SemverVersion, newVersion } from './semver.js';
export { GoTime, formatTime, parseTime, parseDuration, durationString } from './dates.js';
export { isEmpty, deepEqual } from './collections.js';
export { SprigCertificate } from './certs.js';
export { withEntropy, seededEntropy, systemEntropy, type EntropySource } from './entropy.js';

/** Every sprig function helm exposes, by template name. A fresh map per call (callers may extend it). */
export function sprigFunctions(): Record<string, GoFunc> {
  const fns: Record<string, GoFunc> = {
    hello: () => 'Hello!',
    ...stringFunctions(),
    ...mathFunctions(),
    ...collectionFunctions(),
    ...regexFunctions(),
    ...cryptoFunctions(),
    ...certFunctions(),
    ...semverFunctions(),
    ...dateFunctions(),
    ...reflectFunctions(),
    ...urlFunctions(),
  };
  // Each function carries its Go signature (the executor's `goSignature` protocol: it checks counts
  // and types and converts literals as text/template does); the wrapper keeps the count check for
  // callers that invoke functions directly.
  for (const [name, spec] of Object.entries(GO_SIGNATURES)) {
    const f = fns[name];
    if (!f) continue;
    const sig = parseSignature(spec);
    const n = sig.params.length;
    const variadic = sig.variadic !== undefined;
    const wrapped: GoFunc = (...a) => {
      arity(name, a, n, variadic);
      return f(...a);
    };
    Object.defineProperty(wrapped, 'goSignature', { value: sig, enumerable: false });
    fns[name] = wrapped;
  }
  return fns;
}

/** A signature as the executor reads it: parameter types, and the element type of a ...T tail. */
export interface SprigSignature {
  params: string[];
  variadic?: string;
}

function parseSignature(spec: string): SprigSignature {
  const parts = spec === '' ? [] : spec.split(',');
  const last = parts[parts.length - 1];
  if (last?.startsWith('...')) return { params: parts.slice(0, -1), variadic: last.slice(3) };
  return { params: parts };
}

const I = 'interface {}';
const M = 'map[string]interface {}';
const L = '[]interface {}';
const S = 'string';

/**
 * Go parameter types of sprig's functions (v3.3 sources), comma-separated, `...T` for variadic.
 */
const GO_SIGNATURES: Record<string, string> = {
  hello: '',
  ...Object.fromEntries(
    (
      'trim upper lower title untitle nospace initials swapcase shuffle snakecase camelcase kebabcase atoi ' +
      'sha1sum sha256sum sha512sum adler32sum base dir clean ext isAbs osBase osClean osDir osExt osIsAbs ' +
      'b64enc b64dec b32enc b32dec bcrypt genPrivateKey semver regexQuoteMeta urlParse getHostByName'
    )
      .split(' ')
      .map((n) => [n, S]),
  ),
  ...Object.fromEntries(
    (
      'toString int64 int float64 toDecimal toStrings add1 add1f ceil floor sortAlpha empty compact mustCompact ' +
      'deepCopy mustDeepCopy typeOf kindOf first mustFirst rest mustRest last mustLast initial mustInitial ' +
      'reverse mustReverse uniq mustUniq ago duration durationRound htmlDate'
    )
      .split(' ')
      .map((n) => [n, I]),
  ),
  ...Object.fromEntries(
    'quote squote cat add addf coalesce all any list tuple dict concat dig'
      .split(' ')
      .map((n) => [n, `...${I}`]),
  ),
  ...Object.fromEntries(
    'mul subf divf mulf biggest max min maxf minf default without mustWithout slice mustSlice'
      .split(' ')
      .map((n) => [n, `${I},...${I}`]),
  ),
  ...Object.fromEntries(
    ['randAlphaNum', 'randAlpha', 'randAscii', 'randNumeric', 'until', 'randBytes'].map((n) => [n, 'int']),
  ),
  ...Object.fromEntries(
    (
      'trimall trimAll trimSuffix trimPrefix contains hasPrefix hasSuffix splitList split htpasswd buildCustomCert ' +
      'encryptAES decryptAES semverCompare regexMatch mustRegexMatch regexFind mustRegexFind toDate mustToDate'
    )
      .split(' ')
      .map((n) => [n, `${S},${S}`]),
  ),
  ...Object.fromEntries(
    ['abbrev', 'trunc', 'wrap', 'repeat', 'indent', 'nindent'].map((n) => [n, `int,${S}`]),
  ),
  ...Object.fromEntries(
    [
      'sub',
      'div',
      'mod',
      'append',
      'push',
      'mustAppend',
      'mustPush',
      'prepend',
      'mustPrepend',
      'has',
      'mustHas',
      'deepEqual',
    ].map((n) => [n, `${I},${I}`]),
  ),
  ...Object.fromEntries(['typeIs', 'typeIsLike', 'kindIs', 'join'].map((n) => [n, `${S},${I}`])),
  ...Object.fromEntries(['chunk', 'mustChunk'].map((n) => [n, `int,${I}`])),
  ...Object.fromEntries(['get', 'hasKey', 'unset'].map((n) => [n, `${M},${S}`])),
  ...Object.fromEntries(['pick', 'omit'].map((n) => [n, `${M},...${S}`])),
  ...Object.fromEntries(
    ['merge', 'mergeOverwrite', 'mustMerge', 'mustMergeOverwrite'].map((n) => [n, `${M},...${M}`]),
  ),
  ...Object.fromEntries(
    [
      'regexReplaceAll',
      'mustRegexReplaceAll',
      'regexReplaceAllLiteral',
      'mustRegexReplaceAllLiteral',
      'replace',
    ].map((n) => [n, `${S},${S},${S}`]),
  ),
  ...Object.fromEntries(
    ['regexFindAll', 'mustRegexFindAll', 'regexSplit', 'mustRegexSplit'].map((n) => [n, `${S},${S},int`]),
  ),
  ...Object.fromEntries(
    ['dateModify', 'date_modify', 'mustDateModify', 'must_date_modify'].map((n) => [n, `${S},time.Time`]),
  ),
  ...Object.fromEntries(['dateInZone', 'date_in_zone'].map((n) => [n, `${S},${I},${S}`])),
  abbrevboth: `int,int,${S}`,
  substr: `int,int,${S}`,
  wrapWith: `int,${S},${S}`,
  plural: `${S},${S},int`,
  splitn: `${S},int,${S}`,
  seq: '...int',
  untilStep: 'int,int,int',
  randInt: 'int,int',
  round: `${I},int,...float64`,
  ternary: `${I},${I},bool`,
  set: `${M},${S},${I}`,
  pluck: `${S},...${M}`,
  keys: `...${M}`,
  values: M,
  urlJoin: M,
  date: `${S},${I}`,
  htmlDateInZone: `${I},${S}`,
  now: '',
  unixEpoch: 'time.Time',
  uuidv4: '',
  derivePassword: `uint32,${S},${S},${S},${S}`,
  genCA: `${S},int`,
  genCAWithKey: `${S},int,${S}`,
  genSelfSignedCert: `${S},${L},${L},int`,
  genSelfSignedCertWithKey: `${S},${L},${L},int,${S}`,
  genSignedCert: `${S},${L},${L},int,sprig.certificate`,
  genSignedCertWithKey: `${S},${L},${L},int,sprig.certificate,${S}`,
};
