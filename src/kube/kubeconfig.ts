// Reads a kubeconfig into a KubeConnection: one context (the current one unless named), its cluster's
// server and CA, its user's token or client certificate. Credential plugins (exec, auth-provider) are not run.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse } from 'yaml';
import type { KubeConnection } from './types.js';

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The `<field>` body of the named entry of a kubeconfig list (`clusters`, `users`, `contexts`). */
function entry(config: Fields, list: string, field: string, name: string, origin: string): Fields {
  const entries = config[list];
  if (Array.isArray(entries)) {
    for (const e of entries as unknown[]) {
      if (isFields(e) && e['name'] === name) {
        const body = e[field];
        if (!isFields(body)) throw new Error(`kubeconfig ${origin}: ${list} entry "${name}" has no ${field}`);
        return body;
      }
    }
  }
  throw new Error(`kubeconfig ${origin}: no ${field} named "${name}" in ${list}`);
}

function optionalString(body: Fields, key: string, what: string, origin: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`kubeconfig ${origin}: ${what} ${key} must be a string`);
  return value;
}

/**
 * A PEM from `<key>-data` (base64) or `<key>` (a file, relative to the kubeconfig's directory). The data
 * form wins, as in client-go.
 */
function pem(body: Fields, key: string, what: string, origin: string, baseDir: string): string | undefined {
  const data = optionalString(body, `${key}-data`, what, origin);
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  const file = optionalString(body, key, what, origin);
  if (file === undefined) return undefined;
  const path = isAbsolute(file) ? file : resolve(baseDir, file);
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`kubeconfig ${origin}: cannot read ${what} ${key} ${path}: ${(e as Error).message}`, {
      cause: e,
    });
  }
}

/**
 * The connection of one context of a kubeconfig's text. `origin` names the kubeconfig in errors;
 * relative certificate and token file paths are resolved against `baseDir`.
 */
export function parseKubeconfig(
  text: string,
  context?: string,
  origin = '(inline)',
  baseDir = process.cwd(),
): KubeConnection {
  let config: unknown;
  try {
    config = parse(text);
  } catch (e) {
    throw new Error(`kubeconfig ${origin} is not valid YAML: ${(e as Error).message}`, { cause: e });
  }
  if (!isFields(config)) throw new Error(`kubeconfig ${origin} is not a YAML mapping`);
  const contextName = context ?? optionalString(config, 'current-context', 'the', origin);
  if (contextName === undefined)
    throw new Error(`kubeconfig ${origin} has no current-context; name a context to use`);
  const ctx = entry(config, 'contexts', 'context', contextName, origin);
  const clusterName = optionalString(ctx, 'cluster', `context "${contextName}"`, origin);
  if (clusterName === undefined)
    throw new Error(`kubeconfig ${origin}: context "${contextName}" names no cluster`);
  const userName = optionalString(ctx, 'user', `context "${contextName}"`, origin);
  const cluster = entry(config, 'clusters', 'cluster', clusterName, origin);
  const clusterWhat = `cluster "${clusterName}"`;
  const server = optionalString(cluster, 'server', clusterWhat, origin);
  if (server === undefined) throw new Error(`kubeconfig ${origin}: ${clusterWhat} has no server`);

  const connection: KubeConnection = { server };
  const caPem = pem(cluster, 'certificate-authority', clusterWhat, origin, baseDir);
  if (caPem !== undefined) connection.caPem = caPem;
  if (cluster['insecure-skip-tls-verify'] === true) connection.insecureSkipTlsVerify = true;

  // A context without a user connects anonymously; a named user must exist.
  if (userName !== undefined) {
    const user = entry(config, 'users', 'user', userName, origin);
    const userWhat = `user "${userName}"`;
    const certPem = pem(user, 'client-certificate', userWhat, origin, baseDir);
    const keyPem = pem(user, 'client-key', userWhat, origin, baseDir);
    if ((certPem === undefined) !== (keyPem === undefined))
      throw new Error(`kubeconfig ${origin}: ${userWhat} has a client certificate or key but not both`);
    if (certPem !== undefined && keyPem !== undefined) {
      connection.certPem = certPem;
      connection.keyPem = keyPem;
    }
    let token = optionalString(user, 'token', userWhat, origin);
    const tokenFile = optionalString(user, 'tokenFile', userWhat, origin);
    if (token === undefined && tokenFile !== undefined) {
      const path = isAbsolute(tokenFile) ? tokenFile : resolve(baseDir, tokenFile);
      try {
        token = readFileSync(path, 'utf8').trim();
      } catch (e) {
        throw new Error(
          `kubeconfig ${origin}: cannot read ${userWhat} tokenFile ${path}: ${(e as Error).message}`,
          {
            cause: e,
          },
        );
      }
    }
    if (token !== undefined) connection.token = token;
    if (
      token === undefined &&
      certPem === undefined &&
      (user['exec'] !== undefined || user['auth-provider'] !== undefined)
    )
      throw new Error(
        `kubeconfig ${origin}: ${userWhat} uses a credential plugin (exec/auth-provider), which is not supported`,
      );
  }
  return connection;
}

/** The connection of one context (default: the current context) of the kubeconfig file at `path`. */
export function loadKubeconfig(path: string, context?: string): KubeConnection {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new Error(`cannot read kubeconfig ${path}: ${(e as Error).message}`, { cause: e });
  }
  return parseKubeconfig(text, context, path, dirname(resolve(path)));
}
