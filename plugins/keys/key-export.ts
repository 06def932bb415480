import { SvcError, type TraceScope } from '../../kernel/index.ts';
import { requireEnabled } from './key-state.ts';
import type { KeyStore } from './key-store.ts';

/** Fields other parts of the key service may add to a key (scheduled destruction, version trim). */

/**
 * Export of an exportable key's material: the stored bytes of one version, raw for AES and HMAC,
 * PKCS#8 DER for RSA, EC and EdDSA. Only from Active or Deactivated (a Deactivated key's material is
 * still what old ciphertexts and signatures need elsewhere); never from a key marked for destruction or
 * a trimmed version, whose material is on its way out for good.
 */
export class KeyExport {
  constructor(private readonly store: KeyStore) {}

  async export(id: string, version: number | undefined, trace: TraceScope) {
    const key = await this.store.get(id, trace);
    if (!key.spec.exportable)
      throw new SvcError(
        'IllegalOperation',
        `key ${id} is not exportable: spec.exportable was false at its creation and cannot change`,
      );
    requireEnabled(key, 'export');
    if (key.state !== 'Active' && key.state !== 'Deactivated')
      throw new SvcError(
        'IllegalOperation',
        `key ${id} is ${key.state}; export is allowed only from Active or Deactivated`,
      );
    if (key.destroyAt !== undefined)
      throw new SvcError(
        'IllegalOperation',
        `key ${id} is scheduled for destruction at ${key.destroyAt}; export is refused meanwhile`,
      );
    const keyVersion = version ?? key.currentVersion;
    if (key.minVersion !== undefined && keyVersion < key.minVersion)
      throw new SvcError('IllegalOperation', `version ${keyVersion} of key ${id} was trimmed; its material is gone`);
    const material = await this.store.storedMaterialOf(key, keyVersion, trace);
    try {
      return {
        id,
        keyVersion,
        format: key.spec.objectType === 'SymmetricKey' ? ('raw' as const) : ('pkcs8-der' as const),
        materialBase64: material.toString('base64'),
      };
    } finally {
      material.fill(0);
    }
  }
}
