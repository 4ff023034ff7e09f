// Kubeconfig files for the hub's users and agents: one cluster, one user (bearer token or client
// certificate), one context, written owner-only and atomically because they carry credentials.
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import { writeFileAtomic } from './files.js';

export interface KubeconfigParams {
  /** `https://host:port`. */
  server: string;
  /** The hub CA, PEM; stored as certificate-authority-data. Empty for a plain-HTTP server. */
  caPem: string;
  token?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  /** Name of the user entry; default `fleethub-admin`. */
  user?: string;
  /** Name of the cluster and context entries; default `fleethub`. */
  context?: string;
  /** Default namespace of the context. */
  namespace?: string;
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** The kubeconfig as YAML text (for files, or for an API that hands one out). */
export function renderKubeconfig(params: KubeconfigParams): string {
  const user = params.user ?? 'fleethub-admin';
  const context = params.context ?? 'fleethub';
  let credentials: Record<string, string>;
  if (params.token !== undefined) {
    credentials = { token: params.token };
  } else if (params.clientCertPem !== undefined && params.clientKeyPem !== undefined) {
    credentials = {
      'client-certificate-data': b64(params.clientCertPem),
      'client-key-data': b64(params.clientKeyPem),
    };
  } else {
    throw new Error('a kubeconfig needs a token or a client certificate and key');
  }
  const contextBody: Record<string, string> = { cluster: context, user };
  if (params.namespace) contextBody['namespace'] = params.namespace;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: context,
        cluster: params.caPem
          ? { server: params.server, 'certificate-authority-data': b64(params.caPem) }
          : { server: params.server },
      },
    ],
    users: [{ name: user, user: credentials }],
    contexts: [{ name: context, context: contextBody }],
    'current-context': context,
    preferences: {},
  });
}

/** Writes the kubeconfig to `path` with mode 0600, replacing any previous file atomically. */
export function writeKubeconfig(path: string, params: KubeconfigParams): void {
  writeFileAtomic(path, renderKubeconfig(params), 0o600);
}

/** What a kubeconfig written by `writeKubeconfig` holds for its current context; undefined if unreadable. */
export function readKubeconfig(
  path: string,
): { server: string; caPem: string; token?: string; user: string } | undefined {
  try {
    // Parsed YAML is untyped; every field is checked before use below.
    const doc = parse(readFileSync(path, 'utf8')) as Record<string, unknown> | null;
    if (!doc || typeof doc !== 'object') return undefined;
    const contextName = doc['current-context'];
    const contexts = Array.isArray(doc['contexts']) ? (doc['contexts'] as Record<string, unknown>[]) : [];
    const ctx = contexts.find((c) => c['name'] === contextName)?.['context'] as
      Record<string, unknown> | undefined;
    if (!ctx) return undefined;
    const clusters = Array.isArray(doc['clusters']) ? (doc['clusters'] as Record<string, unknown>[]) : [];
    const users = Array.isArray(doc['users']) ? (doc['users'] as Record<string, unknown>[]) : [];
    const cluster = clusters.find((c) => c['name'] === ctx['cluster'])?.['cluster'] as
      Record<string, unknown> | undefined;
    const user = users.find((u) => u['name'] === ctx['user'])?.['user'] as
      Record<string, unknown> | undefined;
    if (
      !cluster ||
      typeof cluster['server'] !== 'string' ||
      typeof cluster['certificate-authority-data'] !== 'string'
    ) {
      return undefined;
    }
    const result: { server: string; caPem: string; token?: string; user: string } = {
      server: cluster['server'],
      caPem: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8'),
      user: String(ctx['user']),
    };
    if (user && typeof user['token'] === 'string') result.token = user['token'];
    return result;
  } catch {
    return undefined;
  }
}
