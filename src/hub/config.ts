// The hub's configuration: command-line flags over FLEETHUB_* environment variables over defaults,
// validated once at start-up. Every listener that is not loopback serves TLS.
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { parseRetention } from '../security/audit-retention.js';

export interface HubConfig {
  dataDir: string;
  /** HTTPS listener. */
  listen: { host: string; port: number };
  /** Optional plain-HTTP listener, loopback only. */
  insecureHttpListen?: { host: string; port: number };
  /** `sqlite:/path`, `postgres://…` or `memory:`. */
  databaseUrl: string;
  logLevel: string;
  /** Extra DNS names / IPs for the serving certificate. */
  tlsSans: string[];
  /** Identity in leader election; defaults to hostname + pid. */
  identity?: string;
  /** Audit events older than this (ms) are removed by the leader; 0 keeps them forever. */
  auditRetentionMs: number;
  /** Simulated clusters started beside the hub for demos (kubeconfigs in <data-dir>/demo-fleet); 0 = none. */
  demoFleet: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function parseHostPort(value: string, flag: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value);
  if (!match) throw new ConfigError(`${flag}: expected HOST:PORT, got "${value}"`);
  const host = match[1] ?? match[2] ?? '';
  const port = Number(match[3]);
  if (!host) throw new ConfigError(`${flag}: missing host in "${value}"`);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`${flag}: invalid port in "${value}"`);
  return { host, port };
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1';
  return false;
}

const FLAGS = [
  'data-dir',
  'listen',
  'database',
  'insecure-http-listen',
  'log-level',
  'tls-san',
  'identity',
  'audit-retention',
  'demo-fleet',
] as const;
type Flag = (typeof FLAGS)[number];

/** Parses `--flag value` / `--flag=value` pairs; repeated flags accumulate. */
export function parseFlags(argv: string[]): Map<Flag, string[]> {
  const out = new Map<Flag, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) throw new ConfigError(`unexpected argument "${arg}"`);
    const eq = arg.indexOf('=');
    const name = (eq >= 0 ? arg.slice(2, eq) : arg.slice(2)) as Flag;
    if (!FLAGS.includes(name))
      throw new ConfigError(`unknown flag --${name} (known: ${FLAGS.map((f) => `--${f}`).join(', ')})`);
    const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new ConfigError(`--${name} needs a value`);
    out.set(name, [...(out.get(name) ?? []), value]);
  }
  return out;
}

export function hubConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): HubConfig {
  const flags = parseFlags(argv);
  const one = (flag: Flag, envName: string): string | undefined => flags.get(flag)?.at(-1) ?? env[envName];
  const dataDir = resolve(one('data-dir', 'FLEETHUB_DATA_DIR') ?? './fleethub-data');
  const listen = parseHostPort(one('listen', 'FLEETHUB_LISTEN') ?? '127.0.0.1:8443', '--listen');
  const insecure = one('insecure-http-listen', 'FLEETHUB_INSECURE_HTTP_LISTEN');
  const config: HubConfig = {
    dataDir,
    listen,
    databaseUrl: normaliseDatabaseUrl(
      one('database', 'FLEETHUB_DATABASE') ?? `sqlite:${dataDir}/fleethub.db`,
    ),
    logLevel: one('log-level', 'FLEETHUB_LOG_LEVEL') ?? 'info',
    tlsSans: flags.get('tls-san') ?? (env.FLEETHUB_TLS_SAN ? env.FLEETHUB_TLS_SAN.split(',') : []),
    auditRetentionMs: retention(one('audit-retention', 'FLEETHUB_AUDIT_RETENTION') ?? '30d'),
    demoFleet: demoFleet(one('demo-fleet', 'FLEETHUB_DEMO_FLEET') ?? '0'),
  };
  const identity = one('identity', 'FLEETHUB_IDENTITY');
  if (identity) config.identity = identity;
  if (insecure) {
    const address = parseHostPort(insecure, '--insecure-http-listen');
    if (!isLoopback(address.host))
      throw new ConfigError(
        `--insecure-http-listen must be a loopback address (127.0.0.1, ::1 or localhost), got "${address.host}": plain HTTP is never served beyond this machine`,
      );
    config.insecureHttpListen = address;
  }
  return config;
}

function demoFleet(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 1000)
    throw new ConfigError(`--demo-fleet: expected a number of clusters from 0 to 1000, got "${value}"`);
  return n;
}

function retention(value: string): number {
  try {
    return parseRetention(value);
  } catch (e) {
    throw new ConfigError(`--audit-retention: ${(e as Error).message}`);
  }
}

function normaliseDatabaseUrl(url: string): string {
  if (
    url.startsWith('postgres://') ||
    url.startsWith('postgresql://') ||
    url.startsWith('sqlite:') ||
    url === 'memory:'
  )
    return url;
  throw new ConfigError(`--database: expected sqlite:/path/file.db, postgres://… or memory:, got "${url}"`);
}
