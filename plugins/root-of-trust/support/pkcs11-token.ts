import { readFile } from 'node:fs/promises';
import type { Logger } from '../../../kernel/index.ts';
import { AMBIGUOUS, ckr, PIN_REFUSED, Pkcs11SetupError, TOKEN_GONE, tokenUnavailable } from './pkcs11-errors.ts';
import { type Pkcs11, Pkcs11Module } from './pkcs11-module.ts';

/** How KWKs are wrapped under the current KEK: AES key wrap with padding (RFC 5649) where the token has it. */
export type Pkcs11Mechanism = 'aes-key-wrap-pad' | 'aes-gcm';

export interface Pkcs11TokenSettings {
  module: string;
  tokenLabel: string;
  pin: string;
  pinFile: string;
  /** The current KEK's label first, then the previous ones. */
  kekLabels: string[];
  createKek: boolean;
}

/** A session lent for one call, with what it needs of the connection it belongs to. */
export interface Pkcs11Lease {
  lib: Pkcs11;
  api: Pkcs11Module['api'];
  session: Buffer;
  mechanism: Pkcs11Mechanism;
  kek(label: string): Buffer;
}

interface Connection {
  generation: number;
  slot: Buffer;
  keks: Map<string, Buffer>;
  mechanism: Pkcs11Mechanism;
  idle: Buffer[];
  open: number;
}

/**
 * Sessions a root of trust keeps open on its token. PKCS#11 sessions run one operation at a time, and
 * HSMs limit sessions per application; the binding's asynchronous calls run on libuv's pool (4 threads
 * by default), so a few more sessions than threads keep it busy.
 */
const POOL_SIZE = 8;
/** After a failed connection attempt, calls answer 503 at once for this long instead of asking the token again. */
const RECONNECT_INTERVAL_MS = 1000;

/**
 * One token of one PKCS#11 library: where its KEKs are, a pool of logged-in sessions, and recovery. A
 * call whose token went away (a return value of TOKEN_GONE, or an ambiguous one while the token does not
 * answer a health check) drops every session and answers 503; the next call, at most once a second,
 * initialises the library again, finds the token by its label, logs in and finds the KEKs, so a token
 * that comes back is used again without a restart. A PIN the token refuses is never tried again (that
 * would count towards locking the token) until the service is restarted with the right one.
 */
export class Pkcs11Token {
  private module: Pkcs11Module | undefined;
  private pin = '';
  private conn: Connection | undefined;
  private connecting: Promise<Connection> | undefined;
  private lastFailure: { at: number; error: Error } | undefined;
  /** The generation under which the last connection failed: the next attempt re-initialises the library. */
  private failedGeneration: number | undefined;
  private pinRefused = false;
  private waiters: { resolve: (lease: Buffer) => void; reject: (err: Error) => void; conn: Connection }[] = [];

  constructor(
    private readonly settings: Pkcs11TokenSettings,
    private readonly logger: Pick<Logger, 'warn' | 'error'>,
    private readonly options: { needsWrap: boolean; preferGcm?: boolean },
  ) {}

  get tokenLabel(): string {
    return this.settings.tokenLabel;
  }

  /**
   * Loads the library, reads the PIN and connects. Settings that do not fit the token (a library that does
   * not load, no token with the label, a refused PIN, no KEK with the label, a KEK that is not a
   * non-extractable AES-256 key) throw Pkcs11SetupError; a token that is there but fails is an outage:
   * logged, and calls answer 503 until it recovers.
   */
  async open(): Promise<void> {
    const s = this.settings;
    try {
      this.module = Pkcs11Module.acquire(s.module);
    } catch (err) {
      throw new Pkcs11SetupError(`crypto.pkcs11.module (SVC_CRYPTO_PKCS11_MODULE): the PKCS#11 library ${s.module} cannot be loaded: ${(err as Error).message}`);
    }
    this.pin = s.pinFile ? await readPinFile(s.pinFile) : s.pin;
    try {
      this.module.ensureInitialized();
    } catch (err) {
      throw new Pkcs11SetupError(`crypto.pkcs11.module (SVC_CRYPTO_PKCS11_MODULE): the PKCS#11 library ${s.module} failed to initialise (${ckr(err) ?? (err as Error).message}); check the library's own configuration`);
    }
    try {
      this.conn = this.connect();
    } catch (err) {
      if (err instanceof Pkcs11SetupError) throw err;
      this.failed(err as Error, this.module.generation);
      this.logger.warn(`the HSM token "${s.tokenLabel}" cannot be used now; calls that need it answer 503 until it can`, { error: (err as Error).message });
    }
  }

  close(): void {
    this.drop(this.conn, tokenUnavailable('the service is stopping'));
    this.module?.release();
    this.module = undefined;
    this.pin = '';
  }

  /** Runs `use` on a session of its own; token failures drop the pool and become 503. */
  async withSession<T>(call: string, use: (lease: Pkcs11Lease) => Promise<T>): Promise<T> {
    const conn = await this.connection();
    const session = await this.acquire(conn);
    const module = this.module!;
    const lease: Pkcs11Lease = {
      lib: module.lib, api: module.api, session, mechanism: conn.mechanism,
      kek: (label) => {
        const handle = conn.keks.get(label);
        if (!handle) throw new Error(`no KEK labelled "${label}" is configured`);
        return handle;
      },
    };
    let broken = false;
    try {
      return await use(lease);
    } catch (err) {
      const code = ckr(err);
      if (code && (TOKEN_GONE.has(code) || (AMBIGUOUS.has(code) && !this.healthy(conn, session)))) {
        broken = true;
        this.logger.warn(`the HSM token "${this.settings.tokenLabel}" failed; its sessions are dropped and opened again on the next call`, { call, error: code });
        this.failed(err as Error, conn.generation);
        this.drop(conn, tokenUnavailable(code));
        throw tokenUnavailable(code);
      }
      throw err;
    } finally {
      if (!broken) this.release(conn, session);
    }
  }

  /** Ready while a session can be had and the token answers about itself and the current KEK. */
  async check(): Promise<void> {
    await this.withSession('probe', async ({ lib, api, session, kek }) => {
      lib.C_GetTokenInfo(lib.C_GetSessionInfo(session).slotID);
      lib.C_GetAttributeValue(session, kek(this.settings.kekLabels[0]!), [{ type: api.CKA_KEY_TYPE }]);
    });
  }

  private async connection(): Promise<Connection> {
    if (this.pinRefused) throw tokenUnavailable('the token refused the PIN; the service must be restarted with the right one', 60);
    if (this.conn) return this.conn;
    if (this.connecting) return this.connecting;
    if (!this.module) throw new Error('pkcs11 root of trust is not started');
    if (this.lastFailure && Date.now() - this.lastFailure.at < RECONNECT_INTERVAL_MS) throw tokenUnavailable(ckr(this.lastFailure.error) ?? this.lastFailure.error.message, 1);
    this.connecting = (async () => {
      const module = this.module!;
      try {
        if (this.failedGeneration === undefined) module.ensureInitialized();
        else module.reinitialize(this.failedGeneration);
        this.conn = this.connect();
        this.lastFailure = undefined;
        this.failedGeneration = undefined;
        this.logger.warn(`the HSM token "${this.settings.tokenLabel}" is usable again`);
        return this.conn;
      } catch (err) {
        this.failed(err as Error, module.generation);
        if (err instanceof Pkcs11SetupError && err.pinRefused) {
          this.pinRefused = true;
          this.logger.error(`the HSM token "${this.settings.tokenLabel}" refused the PIN; not trying again, so as not to lock it: restart the service with the right PIN`);
        }
        throw tokenUnavailable(ckr(err) ?? (err as Error).message);
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  private failed(error: Error, generation: number): void {
    this.lastFailure = { at: Date.now(), error };
    this.failedGeneration = generation;
  }

  /** Finds the token, logs in, finds (or creates) the KEKs and picks the wrapping mechanism. */
  private connect(): Connection {
    const module = this.module!;
    const { lib, api } = module;
    const s = this.settings;
    const slot = this.findSlot(lib);
    const session = lib.C_OpenSession(slot, api.CKF_SERIAL_SESSION | api.CKF_RW_SESSION);
    try {
      try {
        lib.C_Login(session, api.CKU_USER, this.pin);
      } catch (err) {
        const code = ckr(err);
        if (code === 'CKR_USER_ALREADY_LOGGED_IN') {
          // another root of trust in this process on the same token logged in (login state is per application)
        } else if (code && PIN_REFUSED.has(code)) {
          throw new Pkcs11SetupError(`crypto.pkcs11.pin (SVC_CRYPTO_PKCS11_PIN or SVC_CRYPTO_PKCS11_PIN_FILE): the token "${s.tokenLabel}" refused the PIN (${code})`, true);
        } else throw err;
      }
      const keks = new Map<string, Buffer>();
      s.kekLabels.forEach((label, i) => keks.set(label, this.findKek(lib, api, session, label, i === 0)));
      const mechanism = this.chooseMechanism(lib, api, slot, session, keks.get(s.kekLabels[0]!)!);
      return { generation: module.generation, slot, keks, mechanism, idle: [session], open: 1 };
    } catch (err) {
      try {
        lib.C_CloseSession(session);
      } catch {
        // the session is gone with the token
      }
      throw err;
    }
  }

  private findSlot(lib: Pkcs11): Buffer {
    const labels: string[] = [];
    for (const slot of lib.C_GetSlotList(true)) {
      let label: string;
      try {
        label = lib.C_GetTokenInfo(slot).label.trim();
      } catch {
        continue; // a slot whose token does not answer is not ours to judge
      }
      if (label === this.settings.tokenLabel) return slot;
      if (label) labels.push(label);
    }
    throw new Pkcs11SetupError(`crypto.pkcs11.tokenLabel (SVC_CRYPTO_PKCS11_TOKEN_LABEL): no token labelled "${this.settings.tokenLabel}" in ${this.settings.module} (tokens present: ${labels.map((l) => `"${l}"`).join(', ') || 'none'})`);
  }

  private findKek(lib: Pkcs11, api: Pkcs11Module['api'], session: Buffer, label: string, current: boolean): Buffer {
    lib.C_FindObjectsInit(session, [{ type: api.CKA_CLASS, value: api.CKO_SECRET_KEY }, { type: api.CKA_LABEL, value: label }]);
    let found: Buffer[];
    try {
      found = lib.C_FindObjects(session, 2);
    } finally {
      lib.C_FindObjectsFinal(session);
    }
    const setting = current ? 'crypto.pkcs11.kekLabel (SVC_CRYPTO_PKCS11_KEK_LABEL)' : 'crypto.pkcs11.previousKekLabels (SVC_CRYPTO_PKCS11_PREVIOUS_KEK_LABELS)';
    if (found.length > 1) throw new Pkcs11SetupError(`${setting}: more than one key labelled "${label}" on the token "${this.settings.tokenLabel}"; a KEK's label must name one key`);
    if (found.length === 1) {
      checkKek(lib, api, session, found[0]!, `${setting}: the key labelled "${label}" on the token "${this.settings.tokenLabel}"`);
      return found[0]!;
    }
    if (!current || !this.settings.createKek) {
      throw new Pkcs11SetupError(`${setting}: no key labelled "${label}" on the token "${this.settings.tokenLabel}"${current ? ' (set SVC_CRYPTO_PKCS11_CREATE_KEK=true to create it at this boot)' : ''}`);
    }
    const kek = lib.C_GenerateKey(session, { mechanism: api.CKM_AES_KEY_GEN }, [
      { type: api.CKA_CLASS, value: api.CKO_SECRET_KEY }, { type: api.CKA_KEY_TYPE, value: api.CKK_AES }, { type: api.CKA_VALUE_LEN, value: 32 },
      { type: api.CKA_LABEL, value: label }, { type: api.CKA_ID, value: Buffer.from(label) },
      { type: api.CKA_TOKEN, value: true }, { type: api.CKA_PRIVATE, value: true }, { type: api.CKA_SENSITIVE, value: true }, { type: api.CKA_EXTRACTABLE, value: false },
      { type: api.CKA_WRAP, value: true }, { type: api.CKA_UNWRAP, value: true }, { type: api.CKA_ENCRYPT, value: true }, { type: api.CKA_DECRYPT, value: true },
    ]);
    this.logger.warn(`created the KEK "${label}" on the token "${this.settings.tokenLabel}" (AES-256, sensitive, not extractable)`);
    return kek;
  }

  private chooseMechanism(lib: Pkcs11, api: Pkcs11Module['api'], slot: Buffer, session: Buffer, kek: Buffer): Pkcs11Mechanism {
    const flags = (mechanism: number) => {
      try {
        return lib.C_GetMechanismInfo(slot, mechanism).flags;
      } catch {
        return 0;
      }
    };
    const usage = attributes(lib, session, kek, [api.CKA_WRAP, api.CKA_UNWRAP, api.CKA_ENCRYPT, api.CKA_DECRYPT]);
    const both = (f: number, a: number, b: number) => (f & a) !== 0 && (f & b) !== 0;
    const kwp = both(flags(api.CKM_AES_KEY_WRAP_PAD), api.CKF_WRAP, api.CKF_UNWRAP) && usage[0] === 1 && usage[1] === 1;
    const gcm = both(flags(api.CKM_AES_GCM), api.CKF_ENCRYPT, api.CKF_DECRYPT) && usage[2] === 1 && usage[3] === 1;
    if (kwp && !(this.options.preferGcm && gcm)) return 'aes-key-wrap-pad';
    if (gcm) return 'aes-gcm';
    if (!this.options.needsWrap) return 'aes-key-wrap-pad';
    throw new Pkcs11SetupError(
      `crypto.pkcs11.kekLabel (SVC_CRYPTO_PKCS11_KEK_LABEL): the token "${this.settings.tokenLabel}" cannot wrap with the KEK "${this.settings.kekLabels[0]}": neither AES key wrap with padding (mechanism and the KEK's CKA_WRAP/CKA_UNWRAP) nor AES-GCM (mechanism and CKA_ENCRYPT/CKA_DECRYPT) is available`,
    );
  }

  private async acquire(conn: Connection): Promise<Buffer> {
    const idle = conn.idle.pop();
    if (idle) return idle;
    if (conn.open < POOL_SIZE) {
      const { lib, api } = this.module!;
      conn.open++;
      try {
        return lib.C_OpenSession(conn.slot, api.CKF_SERIAL_SESSION);
      } catch (err) {
        conn.open--;
        this.failed(err as Error, conn.generation);
        this.drop(conn, tokenUnavailable(ckr(err) ?? 'no session'));
        throw tokenUnavailable(ckr(err) ?? 'no session');
      }
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject, conn }));
  }

  private release(conn: Connection, session: Buffer): void {
    if (this.conn !== conn) {
      this.closeQuietly(session);
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(session);
    else conn.idle.push(session);
  }

  /** A session that failed ambiguously: is the token itself still there, with the KEK? */
  private healthy(conn: Connection, session: Buffer): boolean {
    const { lib, api } = this.module!;
    try {
      lib.C_GetTokenInfo(conn.slot);
      lib.C_GetAttributeValue(session, conn.keks.get(this.settings.kekLabels[0]!)!, [{ type: api.CKA_KEY_TYPE }]);
      return true;
    } catch {
      return false;
    }
  }

  /** Forgets a connection: its sessions are closed (quietly: they may be gone with the token), its waiters refused. */
  private drop(conn: Connection | undefined, why: Error): void {
    if (!conn) return;
    if (this.conn === conn) this.conn = undefined;
    for (const session of conn.idle.splice(0)) this.closeQuietly(session);
    for (const waiter of this.waiters.filter((w) => w.conn === conn)) waiter.reject(why);
    this.waiters = this.waiters.filter((w) => w.conn !== conn);
  }

  private closeQuietly(session: Buffer): void {
    try {
      this.module?.lib.C_CloseSession(session);
    } catch {
      // already gone
    }
  }
}

/** Reads attributes as numbers (CK_ULONG and CK_BBOOL, little-endian as the binding gives them). */
function attributes(lib: Pkcs11, session: Buffer, handle: Buffer, types: number[]): number[] {
  const out = lib.C_GetAttributeValue(session, handle, types.map((type) => ({ type })));
  return out.map((a) => {
    const v = a.value as Buffer | undefined;
    return v && v.length > 0 ? v.readUIntLE(0, Math.min(v.length, 6)) : 0;
  });
}

/** A KEK must be an AES-256 key the token never lets out: sensitive and not extractable. */
function checkKek(lib: Pkcs11, api: Pkcs11Module['api'], session: Buffer, kek: Buffer, what: string): void {
  const [keyType, length, sensitive, extractable] = attributes(lib, session, kek, [api.CKA_KEY_TYPE, api.CKA_VALUE_LEN, api.CKA_SENSITIVE, api.CKA_EXTRACTABLE]);
  if (keyType !== api.CKK_AES || length !== 32) throw new Pkcs11SetupError(`${what} is not an AES-256 key`);
  if (sensitive !== 1 || extractable !== 0) throw new Pkcs11SetupError(`${what} can leave the token (CKA_SENSITIVE must be true and CKA_EXTRACTABLE false); create a KEK that cannot`);
}

/** The PIN from its file: one line; the file's name is in errors, never its content. */
async function readPinFile(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Pkcs11SetupError(`crypto.pkcs11.pinFile (SVC_CRYPTO_PKCS11_PIN_FILE): ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const pin = text.replace(/\r?\n$/, '');
  if (!pin || pin.includes('\n')) throw new Pkcs11SetupError(`crypto.pkcs11.pinFile (SVC_CRYPTO_PKCS11_PIN_FILE): ${file} must hold the PIN on one line`);
  return pin;
}
