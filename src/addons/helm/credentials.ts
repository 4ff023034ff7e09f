// registryCredentialsConfig to what the fetcher needs: username and password from the credentials Secret
// (keys username/password, or a docker config JSON as Sveltos accepts), the CA bundle (key ca.crt), TLS
// and plain-HTTP switches.
import type { JsonObject } from '../../apiserver/patch/json.js';
import type { RegistryAuth } from './oci.js';
import { EntryError, type ReadObject } from './values.js';

export interface SecretRef {
  name?: string;
  namespace?: string;
}

/** `helmCharts[].registryCredentialsConfig` (Sveltos RegistryCredentialsConfig). */
export interface RegistryCredentialsConfig {
  credentials?: SecretRef;
  /** The key holding a docker config JSON; default: any key (Sveltos takes the first). */
  key?: string;
  ca?: SecretRef;
  insecureSkipTLSVerify?: boolean;
  plainHTTP?: boolean;
}

export interface RegistryAccess {
  auth?: RegistryAuth;
  ca?: string;
  insecureSkipTLSVerify?: boolean;
  plainHTTP?: boolean;
}

type Obj = Record<string, unknown>;

function secretData(obj: Obj): Record<string, string> {
  const out: Record<string, string> = {};
  const data = obj['data'];
  if (data && typeof data === 'object')
    for (const [k, v] of Object.entries(data as Obj))
      if (typeof v === 'string') out[k] = Buffer.from(v, 'base64').toString('utf8');
  const stringData = obj['stringData'];
  if (stringData && typeof stringData === 'object')
    for (const [k, v] of Object.entries(stringData as Obj)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The `auths` entry of a docker config JSON for `host` (username/password, or `auth` = base64 user:pass). */
function fromDockerConfig(text: string, host: string): RegistryAuth | undefined {
  let parsed: { auths?: Record<string, { username?: string; password?: string; auth?: string }> };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return undefined;
  }
  const auths = parsed.auths ?? {};
  const entry = Object.entries(auths).find(([server]) => {
    const s = server.replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '');
    return s === host;
  })?.[1];
  if (!entry) return undefined;
  if (entry.username !== undefined && entry.password !== undefined)
    return { username: entry.username, password: entry.password };
  if (entry.auth) {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return undefined;
}

async function readSecret(
  ref: SecretRef,
  clusterNs: string,
  read: ReadObject,
  at: string,
): Promise<{ data: Record<string, string>; type: string; shown: string }> {
  const ns = ref.namespace || clusterNs;
  const name = ref.name ?? '';
  const obj = await read('Secret', ns, name);
  if (!obj) throw new EntryError('ReferenceNotFound', `${at}: Secret ${ns}/${name} not found`);
  const o = obj as unknown as JsonObject;
  return {
    data: secretData(o),
    type: typeof o['type'] === 'string' ? o['type'] : '',
    shown: `${ns}/${name}`,
  };
}

export async function registryAccess(
  config: RegistryCredentialsConfig | undefined,
  repositoryURL: string,
  clusterNs: string,
  read: ReadObject,
  field: string,
): Promise<RegistryAccess> {
  if (!config) return {};
  const out: RegistryAccess = {};
  if (config.insecureSkipTLSVerify) out.insecureSkipTLSVerify = true;
  if (config.plainHTTP) out.plainHTTP = true;
  const at = `${field}.registryCredentialsConfig`;
  if (config.credentials?.name) {
    const secret = await readSecret(config.credentials, clusterNs, read, `${at}.credentials`);
    let host = '';
    try {
      host = new URL(repositoryURL).host;
    } catch {
      host = '';
    }
    const keyed = config.key ? secret.data[config.key] : undefined;
    if (config.key && keyed === undefined)
      throw new EntryError(
        'InvalidReference',
        `${at}.key: Secret ${secret.shown} has no key ${JSON.stringify(config.key)}`,
      );
    const docker = keyed ?? secret.data['.dockerconfigjson'] ?? secret.data['config.json'];
    if (secret.data['username'] !== undefined && secret.data['password'] !== undefined && !config.key)
      out.auth = { username: secret.data['username'], password: secret.data['password'] };
    else if (docker !== undefined) {
      const auth = fromDockerConfig(docker, host);
      if (!auth)
        throw new EntryError(
          'InvalidReference',
          `${at}.credentials: Secret ${secret.shown} has no docker config entry for ${host}`,
        );
      out.auth = auth;
    } else
      throw new EntryError(
        'InvalidReference',
        `${at}.credentials: Secret ${secret.shown} has neither username and password nor a docker config`,
      );
  }
  if (config.ca?.name) {
    const secret = await readSecret(config.ca, clusterNs, read, `${at}.ca`);
    const ca = secret.data['ca.crt'];
    if (ca === undefined)
      throw new EntryError('InvalidReference', `${at}.ca: Secret ${secret.shown} has no key ca.crt`);
    out.ca = ca;
  }
  return out;
}
