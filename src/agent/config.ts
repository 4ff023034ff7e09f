// `fleethub agent` flags: where the hub is, how to trust it, where the agent keeps its identity, how it
// first proves who it is (a one-time join token), and which role it plays (a cluster's or a host's agent).
import { readFileSync } from 'node:fs';
import { ConfigError } from '../hub/config.js';

export interface AgentConfig {
  hubUrl: string;
  caFile: string;
  stateDir: string;
  /** Only needed on the first start, before the state dir holds a certificate. */
  joinToken?: string;
  role: 'cluster' | 'host';
  /** Cluster role: the managed cluster's kubeconfig. */
  kubeconfig?: string;
  leaseDurationSeconds: number;
  /** Host role: whether this host takes k3s work (FLEETHUB_AGENT_K3S_ENABLED=1). */
  k3sEnabled: boolean;
  logLevel: string;
}

const DEFAULT_LEASE_SECONDS = 60;

/** Reads flags and environment; every mistake is a ConfigError that names the flag. */
export function agentConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): AgentConfig {
  let hubUrl: string | undefined;
  let caFile: string | undefined;
  let stateDir: string | undefined;
  let tokenFile: string | undefined;
  let tokenFlag: string | undefined;
  let kubeconfig: string | undefined;
  let host = false;
  let lease = DEFAULT_LEASE_SECONDS;
  let logLevel = 'info';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      const v = eq > 0 && arg.startsWith('--') ? arg.slice(eq + 1) : argv[++i];
      if (v === undefined || v === '') throw new ConfigError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--hub':
        hubUrl = value();
        break;
      case '--ca-file':
        caFile = value();
        break;
      case '--state-dir':
        stateDir = value();
        break;
      case '--join-token-file':
        tokenFile = value();
        break;
      case '--join-token':
        tokenFlag = value();
        break;
      case '--kubeconfig':
        kubeconfig = value();
        break;
      case '--host':
        host = true;
        break;
      case '--lease-duration-seconds': {
        const v = value();
        const n = Number(v);
        if (!/^\d+$/.test(v) || n < 1 || n > 3600)
          throw new ConfigError(`--lease-duration-seconds must be a whole number from 1 to 3600, got "${v}"`);
        lease = n;
        break;
      }
      case '--log-level':
        logLevel = value();
        break;
      default:
        throw new ConfigError(`unknown flag ${flag} for \`fleethub agent\``);
    }
  }
  if (!hubUrl) throw new ConfigError('--hub URL is required (the hub the agent joins)');
  let parsed: URL;
  try {
    parsed = new URL(hubUrl);
  } catch {
    throw new ConfigError(`--hub must be a URL like https://hub.example:8443, got "${hubUrl}"`);
  }
  if (parsed.protocol !== 'https:') throw new ConfigError(`--hub must be an https:// URL, got "${hubUrl}"`);
  if (!caFile) throw new ConfigError('--ca-file FILE is required (the hub CA certificate, PEM)');
  if (!stateDir) throw new ConfigError('--state-dir DIR is required (where the agent keeps its certificate)');
  if (host === (kubeconfig !== undefined))
    throw new ConfigError('give exactly one of --kubeconfig FILE (a cluster agent) or --host (a host agent)');
  const joinToken = readJoinToken(tokenFile, env['FLEETHUB_JOIN_TOKEN'], tokenFlag);
  const config: AgentConfig = {
    hubUrl: hubUrl.replace(/\/+$/, ''),
    caFile,
    stateDir,
    role: host ? 'host' : 'cluster',
    leaseDurationSeconds: lease,
    k3sEnabled: env['FLEETHUB_AGENT_K3S_ENABLED'] === '1',
    logLevel,
  };
  if (joinToken !== undefined) config.joinToken = joinToken;
  if (kubeconfig !== undefined) config.kubeconfig = kubeconfig;
  return config;
}

/** The token from the first source given: file, then environment, then the flag (visible in `ps`). */
function readJoinToken(
  file: string | undefined,
  fromEnv: string | undefined,
  fromFlag: string | undefined,
): string | undefined {
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new ConfigError(`--join-token-file ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    const token = text.trim();
    if (!token) throw new ConfigError(`--join-token-file ${file} is empty`);
    return token;
  }
  if (fromEnv !== undefined && fromEnv.trim() !== '') return fromEnv.trim();
  return fromFlag;
}
