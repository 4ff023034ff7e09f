// The first-start admin credential: `<data-dir>/admin.kubeconfig` (0600) with the hub CA and a token in
// group fleethub:admins. The token is printed nowhere else; a file whose token no longer works is replaced.
import { join } from 'node:path';
import { ADMINS_GROUP } from './builtin-roles.js';
import { readKubeconfig, writeKubeconfig } from './kubeconfig.js';
import type { TokenStore } from './tokens.js';

export const ADMIN_KUBECONFIG = 'admin.kubeconfig';
export const ADMIN_USERNAME = 'fleethub-admin';

export interface AdminKubeconfigParams {
  dataDir: string;
  /** `https://host:port` as clients should reach the hub. */
  server: string;
  caPem: string;
  tokens: TokenStore;
}

/**
 * Makes sure admin.kubeconfig exists and works: kept as is when its token still authenticates as an
 * admin and server and CA are current; rewritten (same token) when only server or CA changed; else a
 * new token is issued (e.g. a fresh database, or the memory store after a restart).
 */
export async function ensureAdminKubeconfig(
  params: AdminKubeconfigParams,
): Promise<{ path: string; issued: boolean }> {
  const path = join(params.dataDir, ADMIN_KUBECONFIG);
  const existing = readKubeconfig(path);
  let token: string | undefined;
  if (existing?.token) {
    const user = await params.tokens.authenticate(existing.token);
    if (user?.groups.includes(ADMINS_GROUP)) token = existing.token;
  }
  if (token && existing && existing.server === params.server && existing.caPem === params.caPem) {
    return { path, issued: false };
  }
  let issued = false;
  if (!token) {
    token = (
      await params.tokens.issue({
        username: ADMIN_USERNAME,
        groups: [ADMINS_GROUP],
        description: ADMIN_KUBECONFIG,
      })
    ).token;
    issued = true;
  }
  writeKubeconfig(path, {
    server: params.server,
    caPem: params.caPem,
    token,
    user: ADMIN_USERNAME,
    context: 'fleethub',
  });
  return { path, issued };
}
