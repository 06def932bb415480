import { LRUCache } from 'lru-cache';
import {
  type AccessKeyCredentials,
  type AccessKeyStore,
  isAccessKeyId,
  type Principal,
  type RootOfTrust,
  type WrappedKey,
} from '../../kernel/index.ts';
import { secretText } from './access-key-material.ts';

/** How many keys' unwrapped secrets one node keeps. */
export const SECRET_CACHE_ENTRIES = 1000;

interface Opened {
  /** The sealed secret this entry was opened from: a key sealed again (another KEK) is opened again. */
  sealed: WrappedKey;
  secret: Promise<string>;
}

const sameSeal = (a: WrappedKey, b: WrappedKey) => a.kekId === b.kekId && a.blob.equals(b.blob);

/**
 * Resolves an access key for a door that verifies signatures. The store is read at every call, so a key
 * deleted on any node is refused at its next use; the unwrap of its secret (a network call on a cloud root
 * of trust) happens once per key and seal, its result kept in memory, bounded. Concurrent first uses of
 * one key share one unwrap.
 */
export class AccessKeyResolver implements AccessKeyCredentials {
  private readonly opened = new LRUCache<string, Opened>({ max: SECRET_CACHE_ENTRIES });

  constructor(
    private readonly store: AccessKeyStore,
    private readonly rootOfTrust: RootOfTrust,
  ) {}

  async resolve(accessKeyId: string): Promise<{ principal: Principal; secret: string } | undefined> {
    if (!isAccessKeyId(accessKeyId)) return undefined;
    const record = await this.store.get(accessKeyId);
    if (!record) {
      // Deleted (here or on another node): its secret leaves this node's memory too.
      this.opened.delete(accessKeyId);
      return undefined;
    }
    let entry = this.opened.get(accessKeyId);
    if (!entry || !sameSeal(entry.sealed, record.sealedSecret)) {
      const sealed = { kekId: record.sealedSecret.kekId, blob: Buffer.from(record.sealedSecret.blob) };
      entry = { sealed, secret: this.open(sealed, accessKeyId) };
      this.opened.set(accessKeyId, entry);
      const mine = entry;
      // A failed unwrap (the root of trust unreachable) is not kept: the next call tries again.
      mine.secret.catch(() => {
        if (this.opened.get(accessKeyId) === mine) this.opened.delete(accessKeyId);
      });
    }
    return { principal: record.principal, secret: await entry.secret };
  }

  private async open(sealed: WrappedKey, accessKeyId: string): Promise<string> {
    const bytes = await this.rootOfTrust.unwrap(sealed, accessKeyId);
    try {
      return secretText(bytes);
    } finally {
      bytes.fill(0);
    }
  }
}
