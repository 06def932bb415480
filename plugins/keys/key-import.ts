import { createHash, createPrivateKey, randomBytes, randomUUID } from 'node:crypto';
import {
  type Clock,
  type KeyJournal,
  type KeySpec,
  openAesGcm,
  type RootOfTrust,
  sealAesGcm,
  SvcError,
  type TraceScope,
} from '../../kernel/index.ts';
import { checkImportedMaterial } from './crypto/imported-material.ts';
import { newWrappingKeyPair, unwrapImportedMaterial, WRAPPING_ALGORITHM } from './crypto/import-wrapping.ts';
import type { ChangeScope, KeyStore } from './key-store.ts';
import { requireTransition } from './key-state.ts';
import { normaliseSpec, type KeySpecRequest } from './spec.ts';

/** How long an import token may be spent. */
export const IMPORT_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * Unspent, unexpired tokens one caller may hold: each costs the service an RSA-3072 key generation and
 * a stored row, so a caller asking in a loop is stopped here (the rate limit alone would let it fill
 * the table for a day).
 */
export const MAX_LIVE_IMPORT_TOKENS = 100;
/** The format byte of a wrapping private key sealed under its token's sealing key. */
const SEALED_FORMAT = 1;
const BAD_TOKEN =
  'importToken is unknown, expired, already used or was issued to another ' +
  'caller; get new import parameters (POST /v1/keys/import-parameters)';

const capReached = (issuedTo: string) =>
  new SvcError(
    'TooManyRequests',
    `${issuedTo} already holds ${MAX_LIVE_IMPORT_TOKENS} unspent import tokens; spend them or let them expire (24 hours after issue)`,
    { retryAfterSeconds: 3600 },
  );

/** `AES/256`, `EC/384/P-384`: what an import token is good for, and what a spec asks for. */
const keyTypeOf = (spec: Pick<KeySpec, 'algorithm' | 'sizeBits' | 'curve' | 'parameterSet'>) =>
  `${spec.algorithm}/${spec.sizeBits}${spec.curve ? `/${spec.curve}` : ''}${spec.parameterSet ? `/${spec.parameterSet}` : ''}`;
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
/** What the root of trust binds a token's sealing key to: never a key id (those are bare UUIDs). */
const bindingOf = (importId: string) => `import:${importId}`;

/**
 * Bring your own key. `parameters` makes an RSA-3072 wrapping key and a single-use token for one key
 * type, kept in the journal (so any node can spend it and a restart keeps it) with the private key
 * sealed under a key the root of trust wraps; `import` spends the token (any attempt spends it, so the
 * wrapping key decrypts at most one ciphertext), opens the wrapped material, checks it against the spec
 * and creates the key from it, PreActive with origin `imported`. Nothing is stored for a refused import.
 */
export class KeyImport {
  constructor(
    private readonly store: KeyStore,
    private readonly journal: KeyJournal,
    private readonly rootOfTrust: RootOfTrust,
    private readonly clock: Clock,
  ) {}

  async parameters(
    request: { algorithm: string; sizeBits?: number; curve?: string; parameterSet?: string },
    issuedTo: string,
    trace: TraceScope,
  ) {
    const keyType = keyTypeOf(normaliseSpec({ name: 'import', ...request }));
    // A caller at the cap is refused before the key generation and the root of trust's wrap (most of a
    // second of CPU); the journal's insert checks again, for concurrent requests.
    const held = await trace.child('journal.liveImportTokens', () =>
      this.journal.liveImportTokens(issuedTo, this.clock.now().toISOString()),
    );
    if (held >= MAX_LIVE_IMPORT_TOKENS) throw capReached(issuedTo);
    const { publicKeyPem, privateKeyDer } = await trace.child('import.newWrappingKey', () => newWrappingKeyPair());
    const importToken = randomBytes(32).toString('base64url');
    const importId = randomUUID();
    const sealingKey = randomBytes(32);
    try {
      const now = this.clock.now();
      const expiresAt = new Date(now.getTime() + IMPORT_TOKEN_TTL_MS).toISOString();
      const wrapped = await trace.child('rootOfTrust.wrap', () =>
        this.rootOfTrust.wrap(sealingKey, bindingOf(importId), { trace }),
      );
      const stored = await trace.child('journal.putImportToken', () =>
        this.journal.putImportToken(
          {
            tokenHash: hashOf(importToken),
            importId,
            issuedTo,
            keyType,
            createdAt: now.toISOString(),
            expiresAt,
            sealingKey: wrapped,
            privateKey: sealAesGcm(sealingKey, SEALED_FORMAT, bindingOf(importId), privateKeyDer),
          },
          MAX_LIVE_IMPORT_TOKENS,
        ),
      );
      if (!stored) throw capReached(issuedTo);
      return {
        result: { importToken, wrappingPublicKeyPem: publicKeyPem, wrappingAlgorithm: WRAPPING_ALGORITHM, expiresAt },
        keyType,
      };
    } finally {
      sealingKey.fill(0);
      privateKeyDer.fill(0);
    }
  }

  async import(request: KeySpecRequest, importToken: string, wrappedMaterial: Buffer, scope: ChangeScope) {
    // Everything the request alone can refuse is refused before the token is spent.
    const spec = normaliseSpec(request);
    if (spec.name !== undefined) await this.store.requireNameFree(spec.name, scope.trace);
    const now = this.clock.now().toISOString();
    const token = await scope.trace.child('journal.takeImportToken', () =>
      this.journal.takeImportToken(hashOf(importToken), scope.by, now),
    );
    if (!token) throw new SvcError('InvalidField', BAD_TOKEN);
    if (token.keyType !== keyTypeOf(spec))
      throw new SvcError(
        'InvalidField',
        `importToken was issued for ${token.keyType} material; the spec asks for ${keyTypeOf(spec)} (the token is spent: get new import parameters)`,
      );
    const material = unwrapImportedMaterial(await this.wrappingKeyOf(token), wrappedMaterial);
    let checked: Buffer | undefined;
    try {
      checked = checkImportedMaterial(spec, material);
      const context = {
        algorithm: spec.algorithm,
        sizeBits: String(spec.sizeBits),
        ...(spec.curve ? { curve: spec.curve } : {}),
        ...(spec.parameterSet ? { parameterSet: spec.parameterSet } : {}),
        origin: 'imported',
        ...(spec.exportable ? { exportable: 'true' } : {}),
        owner: scope.owner ?? scope.by,
        ...(scope.tenant ? { tenant: scope.tenant } : {}),
      };
      return await this.store.create(spec, scope, now, (id) => ({ resource: id, context }), { imported: checked });
    } finally {
      material.fill(0);
      checked?.fill(0);
    }
  }

  /**
   * Imports material into a key made to await it (AWS's CreateKey with Origin EXTERNAL, then
   * ImportKeyMaterial): the token must have been issued for the key's type. The material becomes version
   * 1 (and, with `activate`, the key Active in the same append). The token is spent by any attempt.
   */
  async importInto(id: string, importToken: string, wrappedMaterial: Buffer, scope: ChangeScope, activate: boolean) {
    const key = await this.store.get(id, scope.trace);
    if (!key.awaitingMaterial)
      throw new SvcError(
        'IllegalOperation',
        `key ${id} has its material; only a key made with awaitMaterial takes an import`,
      );
    const now = this.clock.now().toISOString();
    const token = await scope.trace.child('journal.takeImportToken', () =>
      this.journal.takeImportToken(hashOf(importToken), scope.by, now),
    );
    if (!token) throw new SvcError('InvalidField', BAD_TOKEN);
    if (token.keyType !== keyTypeOf(key.spec))
      throw new SvcError(
        'InvalidField',
        `importToken was issued for ${token.keyType} material; key ${id} is ${keyTypeOf(key.spec)} (the token is spent: get new import parameters)`,
      );
    const material = unwrapImportedMaterial(await this.wrappingKeyOf(token), wrappedMaterial);
    let checked: Buffer | undefined;
    try {
      checked = checkImportedMaterial(key.spec, material);
      const materialId = await this.store.storeMaterial(id, checked, scope.trace);
      return await this.store.mutate(id, scope, async (k) => {
        requireTransition(k, 'MaterialImported');
        if (!k.awaitingMaterial) throw new SvcError('IllegalOperation', `key ${id} received its material meanwhile`);
        return {
          event: { type: 'MaterialImported', at: now, by: scope.by, materialId },
          ...(activate ? { followedBy: { type: 'KeyActivated', at: now, by: scope.by } } : {}),
          facts: { context: { origin: 'imported', ...(activate ? { activated: 'true' } : {}) } },
        };
      });
    } finally {
      material.fill(0);
      checked?.fill(0);
    }
  }

  /** The key's facts for key-scoped policy (owner, name), undefined for an unknown key. */
  factsOf(id: string) {
    return this.store.facts(id);
  }

  /** The token's RSA private key, opened through the root of trust. */
  private async wrappingKeyOf(token: {
    importId: string;
    sealingKey: { kekId: string; blob: Buffer };
    privateKey: Buffer;
  }) {
    let sealingKey: Buffer;
    try {
      sealingKey = await this.rootOfTrust.unwrap(token.sealingKey, bindingOf(token.importId));
    } catch (err) {
      if (err instanceof SvcError) throw err; // the root of trust unreachable: 503, retry with new parameters
      throw new SvcError(
        'InvalidField',
        `the wrapping key of this importToken can no longer be opened (its KEK ${token.sealingKey.kekId} is not known to the root of trust any more); get new import parameters`,
      );
    }
    try {
      const der = openAesGcm(sealingKey, SEALED_FORMAT, bindingOf(token.importId), token.privateKey);
      try {
        return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
      } finally {
        der.fill(0);
      }
    } finally {
      sealingKey.fill(0);
    }
  }
}
