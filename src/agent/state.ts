// The agent's state directory: its client certificate and key (0600, written atomically), and for each
// ManifestWork what the agent applied last, so pruning and deletion survive restarts.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { ensurePrivateDir, writeFileAtomic, writeFileAtomicAsync } from '../security/files.js';

export interface AgentCredentials {
  certPem: string;
  keyPem: string;
  /** The certificate's subject CN: the agent's user name on the hub. */
  username: string;
  notBefore: Date;
  notAfter: Date;
}

const CERT_FILE = 'client.crt';
const KEY_FILE = 'client.key';
const APPLIED_DIR = 'applied';

export class AgentState {
  private appliedDirReady = false;

  constructor(readonly dir: string) {
    ensurePrivateDir(dir);
  }

  /** The stored credentials, or undefined when there are none yet (first start). */
  loadCredentials(): AgentCredentials | undefined {
    const certPath = join(this.dir, CERT_FILE);
    const keyPath = join(this.dir, KEY_FILE);
    if (!existsSync(certPath) || !existsSync(keyPath)) return undefined;
    return describeCredentials(readFileSync(certPath, 'utf8'), readFileSync(keyPath, 'utf8'));
  }

  /** Key first, then certificate: a crash in between leaves no certificate, so the next start re-joins or renews. */
  saveCredentials(certPem: string, keyPem: string): AgentCredentials {
    const creds = describeCredentials(certPem, keyPem);
    writeFileAtomic(join(this.dir, KEY_FILE), keyPem, 0o600);
    writeFileAtomic(join(this.dir, CERT_FILE), certPem, 0o600);
    return creds;
  }

  /** What was applied for a work (namespace/name), or undefined. */
  loadApplied<T>(workKey: string): T | undefined {
    const path = join(this.dir, APPLIED_DIR, fileName(workKey));
    if (!existsSync(path)) return undefined;
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  }

  /** Durable before it resolves (fsync of the file and of the directory), without blocking the event loop. */
  async saveApplied(workKey: string, record: unknown): Promise<void> {
    if (!this.appliedDirReady) {
      ensurePrivateDir(join(this.dir, APPLIED_DIR));
      this.appliedDirReady = true;
    }
    await writeFileAtomicAsync(join(this.dir, APPLIED_DIR, fileName(workKey)), JSON.stringify(record), 0o600);
  }

  forgetApplied(workKey: string): void {
    rmSync(join(this.dir, APPLIED_DIR, fileName(workKey)), { force: true });
  }

  /** Every work key with a stored record (to clean up works deleted while the agent was away). */
  appliedKeys(): string[] {
    const dir = join(this.dir, APPLIED_DIR);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => decodeURIComponent(f.slice(0, -'.json'.length)));
  }
}

function fileName(workKey: string): string {
  return `${encodeURIComponent(workKey)}.json`;
}

export function describeCredentials(certPem: string, keyPem: string): AgentCredentials {
  const cert = new X509Certificate(certPem);
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1];
  if (!cn) throw new Error('the agent certificate has no common name');
  if (!cert.checkPrivateKey(createPrivateKey(keyPem)))
    throw new Error('the agent key does not match its certificate');
  return {
    certPem,
    keyPem,
    username: cn,
    notBefore: new Date(cert.validFrom),
    notAfter: new Date(cert.validTo),
  };
}
