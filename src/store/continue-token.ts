// List continuation tokens: base64url JSON of the first page's resourceVersion and the last key
// returned. Opaque to clients; a token that does not parse is a 400.
import { errors } from '../util/errors.js';

export interface ContinueToken {
  /** resourceVersion of the first page of the list. */
  rv: number;
  namespace: string;
  name: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ rv: token.rv, key: [token.namespace, token.name] })).toString(
    'base64url',
  );
}

export function decodeContinue(value: string): ContinueToken {
  const invalid = (why: string) => errors.badRequest(`continue key is not valid: ${why}`);
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(value)) throw invalid('illegal base64 data');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw invalid('not a continue token');
  }
  if (typeof parsed !== 'object' || parsed === null) throw invalid('not a continue token');
  const { rv, key } = parsed as { rv?: unknown; key?: unknown };
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv < 0) throw invalid('bad resource version');
  if (!Array.isArray(key) || key.length !== 2 || typeof key[0] !== 'string' || typeof key[1] !== 'string') {
    throw invalid('bad key');
  }
  return { rv, namespace: key[0], name: key[1] };
}
