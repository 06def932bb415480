import { isSvcError, ownerOf, type Principal, SvcError } from '../../../../kernel/index.ts';
import { DELETION_ALLOWED_TAG, type KeyView, keyInfo, publicKeysOf } from '../key-info.ts';
import { specOf } from '../key-types.ts';
import type { VaultCall } from '../vault-call.ts';
import { invalid, VaultError } from '../vault-errors.ts';
import { flag, refuseOptions, text, whole, type VaultInput } from '../vault-input.ts';
import { aliasOf, type VaultRoute } from '../vault-route.ts';

/** The key a transit name stands for, read through the pipeline (GetKey). */
export const readKey = (call: VaultCall, name: string | undefined) =>
  call.run<KeyView>('GetKey', () => ({ id: aliasOf(name) }));

/** The key's transit read answer, public keys included. */
export async function answerKey(call: VaultCall, name: string, key?: KeyView) {
  const read = key ?? (await readKey(call, name));
  return { data: keyInfo(name, read, await publicKeysOf(call, read)) };
}

const NOT_OFFERED = {
  derived: 'keys are not derived per context here; context is bound as the encryption context instead',
  convergent_encryption: 'every encryption here takes a fresh nonce',
  allow_plaintext_backup: 'backup and restore are not offered; an exportable key exports its material',
  managed_key_name: 'keys live under the service root of trust',
  auto_rotate_period: 'set a rotation policy with POST /v1/keys/{id}/rotate {policy} instead',
};

/**
 * Whether the caller owns the key (it, or an agent's parent, made it; a Service within its tenant):
 * only then is a create of a taken name answered with the key. Transit names are one namespace for the
 * whole deployment, so a name another owner took first would otherwise hand the caller that owner's key
 * (one it may export) as its own.
 */
function owns(principal: Principal, key: KeyView): boolean {
  if (key.owner !== ownerOf(principal)) return false;
  return principal.kind !== 'Service' || key.tenant === principal.tenant;
}

/**
 * Creates the key `name`: an Active key named NAME, then the alias alias/NAME. A name the caller already
 * holds answers its key, as Vault leaves an existing key as it is. The key's name (unique
 * among keys not Destroyed) makes a concurrent create of the same name fail rather than make a second
 * key; the key is made before anything is read, so a caller whose policy covers only its own keys
 * learns nothing of a name it may not read.
 */
export async function createKey(call: VaultCall, name: string, body: VaultInput): Promise<KeyView> {
  let key: KeyView;
  try {
    key = await call.run<KeyView>('CreateKey', () => {
      aliasOf(name);
      refuseOptions(body, NOT_OFFERED);
      const spec = specOf(text(body, 'type'), whole(body, 'key_size'));
      return { spec: { name, ...spec, exportable: flag(body, 'exportable') === true }, activate: true };
    });
  } catch (err) {
    if (!isSvcError(err) || err.code !== 'IllegalOperation' || !/is taken/.test(err.message)) throw err;
    const taken = await readKey(call, name).catch(() => {
      throw new SvcError('IllegalOperation', `the name ${name} is taken by a key that alias/${name} does not name`);
    });
    if (!owns(call.principal, taken))
      throw new SvcError(
        'IllegalOperation',
        `the transit name ${name} is another owner's key: transit names are shared by the whole service; pick another`,
      );
    return taken;
  }
  await call.run('PutAlias', () => ({ name: aliasOf(name), keyId: key.id, createOnly: true }));
  return key;
}

async function configure(call: VaultCall, name: string, body: VaultInput) {
  const key = await readKey(call, name);
  const floor = key.minVersion ?? 1;
  const tags: Record<string, string> = {};
  await call.run('TagKey', () => {
    refuseOptions(body, { allow_plaintext_backup: NOT_OFFERED.allow_plaintext_backup });
    const rotatePeriod = text(body, 'auto_rotate_period') ?? whole(body, 'auto_rotate_period');
    if (rotatePeriod !== undefined && rotatePeriod !== 0 && rotatePeriod !== '0' && rotatePeriod !== '0s')
      throw invalid(`auto_rotate_period is not offered: ${NOT_OFFERED.auto_rotate_period}`);
    const minDecryption = whole(body, 'min_decryption_version');
    if (minDecryption !== undefined && minDecryption !== 0 && minDecryption !== floor)
      throw invalid(
        `min_decryption_version is ${floor} here and moves only with trim, which erases the versions below it for ` +
          'good (on every door: a floor only transit honoured would not protect anything)',
      );
    const minEncryption = whole(body, 'min_encryption_version');
    if (minEncryption !== undefined && minEncryption !== 0 && minEncryption !== key.currentVersion)
      throw invalid('min_encryption_version: the service always encrypts with the latest version (0)');
    const exportable = flag(body, 'exportable');
    if (exportable !== undefined && exportable !== key.spec.exportable)
      throw invalid('exportable is fixed when the key is created (POST keys/NAME with exportable: true)');
    const deletion = flag(body, 'deletion_allowed');
    if (deletion !== undefined) tags[DELETION_ALLOWED_TAG] = String(deletion);
    return { id: key.id, tags };
  });
  return answerKey(call, name);
}

/**
 * Destroys the key, as a REST DELETE without waitingDays does (at once, or after the deployment's
 * keys.destroyWaitingDays), once deletion_allowed is true; its alias goes with it. The service destroys
 * only keys that no longer encrypt: an Active key's destroy is refused for its state, after the caller's
 * Destroy was authorized, and only then is the key revoked and the destroy asked again, so a caller
 * without Destroy changes nothing.
 */
async function deleteKey(call: VaultCall, name: string) {
  const key = await readKey(call, name);
  if (key.tags[DELETION_ALLOWED_TAG] !== 'true')
    return call.refuse(
      'DestroyKey',
      invalid('deletion is not allowed for this key (config deletion_allowed=true first)'),
    );
  try {
    await call.run('DestroyKey', () => ({ id: key.id }));
  } catch (err) {
    if (!(isSvcError(err) && err.code === 'IllegalOperation' && key.state === 'Active')) throw err;
    await call.run('RevokeKey', () => ({ id: key.id, reason: 'deleted over Vault transit' }));
    await call.run('DestroyKey', () => ({ id: key.id }));
  }
  return {};
}

async function listKeys(call: VaultCall, query: URLSearchParams) {
  if (query.get('list') !== 'true')
    return call.refuse('ListAliases', invalid('list the keys with GET keys?list=true (Vault clients send LIST)'));
  const names: string[] = [];
  let after: string | undefined;
  let pages = 0;
  do {
    const page = await call.run<{ aliases: Array<{ name: string }>; nextAfter?: string }>('ListAliases', () => ({
      limit: 1000,
      ...(after ? { after } : {}),
    }));
    for (const { name } of page.aliases) if (/^alias\/[A-Za-z0-9_-]+$/.test(name)) names.push(name.slice(6));
    after = page.nextAfter;
    // At most 100 pages (100,000 aliases) per list: each page is a call of its own, charged to the caller.
  } while (after !== undefined && ++pages < 100);
  // As Vault: a list with nothing in it is 404.
  if (names.length === 0) throw new VaultError(404, 'no transit keys');
  return { data: { keys: names } };
}

export const keyRoutes: VaultRoute[] = [
  {
    method: 'GET',
    path: 'keys',
    primary: 'ListAliases',
    run: ({ call, query }) => listKeys(call, query),
  },
  {
    method: 'POST',
    path: 'keys/:name',
    primary: 'CreateKey',
    keyPath: true,
    run: async ({ call, params, body }) => answerKey(call, params.name!, await createKey(call, params.name!, body)),
  },
  {
    method: 'GET',
    path: 'keys/:name',
    primary: 'GetKey',
    keyPath: true,
    run: ({ call, params }) => answerKey(call, params.name!),
  },
  {
    method: 'DELETE',
    path: 'keys/:name',
    primary: 'DestroyKey',
    keyPath: true,
    run: ({ call, params }) => deleteKey(call, params.name!),
  },
  {
    method: 'POST',
    path: 'keys/:name/rotate',
    primary: 'RotateKey',
    keyPath: true,
    // Read first: a caller that may not read the key is refused before anything changes.
    run: async ({ call, params }) => {
      const key = await readKey(call, params.name);
      const rotated = await call.run<{ currentVersion: number; rotatedAt: string }>('RotateKey', () => ({
        id: key.id,
      }));
      return answerKey(call, params.name!, {
        ...key,
        currentVersion: rotated.currentVersion,
        rotatedAt: rotated.rotatedAt,
      });
    },
  },
  {
    method: 'POST',
    path: 'keys/:name/config',
    primary: 'TagKey',
    keyPath: true,
    run: ({ call, params, body }) => configure(call, params.name!, body),
  },
  {
    method: 'POST',
    path: 'keys/:name/trim',
    primary: 'TrimKey',
    keyPath: true,
    run: async ({ call, params, body }) => {
      const key = await readKey(call, params.name);
      let wanted: number;
      try {
        const asked = whole(body, 'min_available_version');
        if (asked === undefined || asked < 1) throw invalid('missing min_available_version');
        if (asked > key.currentVersion) throw invalid('min_available_version may not be above the latest version');
        wanted = asked;
      } catch (err) {
        return call.refuse('TrimKey', err);
      }
      // Versions below the floor are gone already: trimming to it or below changes nothing.
      if (wanted > (key.minVersion ?? 1)) await call.run('TrimKey', () => ({ id: key.id, minVersion: wanted }));
      return answerKey(call, params.name!);
    },
  },
];
