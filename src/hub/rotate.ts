// `fleethub hub rotate-encryption-key`: adds a new primary key to the key file and re-encrypts every
// stored Secret under it (the old key stays readable, for replicas still holding the old file).
import { builtinKinds } from '../kinds/builtin/index.js';
import { resourceName } from '../kinds/types.js';
import { reencryptAll, rotateKey, secretsCodec, type RawRowRewriter } from '../security/encryption.js';
import { openStore } from '../store/index.js';
import type { HubConfig } from './config.js';

export async function rotateEncryptionKey(config: HubConfig): Promise<{ keyId: string; rewritten: number }> {
  const { keyring, keyId } = rotateKey(config.dataDir);
  const encrypted = builtinKinds.filter((k) => k.encrypted).map(resourceName);
  const store = await openStore({
    url: config.databaseUrl,
    codec: secretsCodec(keyring, new Set(encrypted)),
  });
  try {
    const rewriter = store as unknown as Partial<RawRowRewriter>;
    if (typeof rewriter.rewriteAll !== 'function') throw new Error('this store cannot rewrite stored values');
    const counts = await reencryptAll(rewriter as RawRowRewriter, keyring, encrypted);
    return { keyId, rewritten: Object.values(counts).reduce((a, b) => a + b, 0) };
  } finally {
    await store.close();
  }
}
