import type { Logger } from '../../../kernel/index.ts';
import { AMBIGUOUS, ckr, PIN_REFUSED, Pkcs11SetupError, TOKEN_GONE, tokenUnavailable } from './pkcs11-errors.ts';
import { type Pkcs11, Pkcs11Module } from './pkcs11-module.ts';
import { readPinFile } from './pkcs11-pin.ts';
import { chooseMechanism, findKek, findSlot, type Pkcs11Mechanism } from './pkcs11-token-objects.ts';

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
/**
 * After a failure, calls answer 503 at once for a while instead of asking the token again: 1 s, doubling
 * with each failed attempt up to 30 s. Re-connecting is synchronous (C_Initialize, C_Login: the binding
 * has no asynchronous form of them), and a network HSM's client may take long to give up, so a token that
 * stays away must not stall the event loop every second.
 */
const RECONNECT_FIRST_MS = 1000;
const RECONNECT_MAX_MS = 30_000;

/**
 * One token of one PKCS#11 library: where its KEKs are, a pool of logged-in sessions, and recovery. A
 * call whose token went away (a return value of TOKEN_GONE, or an ambiguous one while the token does not
 * answer a health check) drops every session and answers 503; the next call after a pause (1 s, growing
 * to 30 s while the token stays away) initialises the library again, finds the token by its label, logs
 * in and finds the KEKs, so a token that comes back is used again without a restart. A PIN the token refuses is never
 * tried again (that
 * would count towards locking the token) until the service is restarted with the right one.
 */
export class Pkcs11Token {
  private module: Pkcs11Module | undefined;
  private pin = '';
  private conn: Connection | undefined;
  private connecting: Promise<Connection> | undefined;
  private lastFailure: { at: number; error: Error; waitMs: number } | undefined;
  private failures = 0;
  /** The generation under which the last connection failed: the next attempt re-initialises the library. */
  private failedGeneration: number | undefined;
  private pinRefused = false;
  private waiters: { resolve: (lease: Buffer) => void; reject: (err: Error) => void; conn: Connection }[] = [];

  constructor(
    private readonly settings: Pkcs11TokenSettings,
    private readonly logger: Pick<Logger, 'warn' | 'error'>,
    private readonly options: { needsWrap: boolean; preferGcm?: boolean },
  ) {}

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
      throw new Pkcs11SetupError(
        `crypto.pkcs11.module (SVC_CRYPTO_PKCS11_MODULE): the PKCS#11 library ${s.module} cannot be loaded: ${(err as Error).message}`,
      );
    }
    try {
      this.pin = s.pinFile ? await readPinFile(s.pinFile, this.logger) : s.pin;
      try {
        this.module.ensureInitialized();
      } catch (err) {
        throw new Pkcs11SetupError(
          `crypto.pkcs11.module (SVC_CRYPTO_PKCS11_MODULE): the PKCS#11 library ${s.module} failed to initialise (${ckr(err) ?? (err as Error).message}); check the library's own configuration`,
        );
      }
      this.conn = this.connect();
    } catch (err) {
      if (err instanceof Pkcs11SetupError) {
        // Let go of the library now, so that the last user's stop finalises it even after a failed start.
        this.close();
        throw err;
      }
      this.failed(err as Error, this.module.generation);
      this.logger.warn(
        `the HSM token "${s.tokenLabel}" cannot be used now; calls that need it answer 503 until it can`,
        { error: (err as Error).message },
      );
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
      lib: module.lib,
      api: module.api,
      session,
      mechanism: conn.mechanism,
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
        this.closeQuietly(session);
        // Calls in flight on a connection already dropped fail too: only the first failure is news.
        if (this.conn === conn) {
          this.logger.warn(
            `the HSM token "${this.settings.tokenLabel}" failed; its sessions are dropped and opened again on the next call`,
            { call, error: code },
          );
          this.failed(err as Error, conn.generation);
          this.drop(conn, tokenUnavailable(code));
        }
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
    if (this.pinRefused)
      throw tokenUnavailable('the token refused the PIN; the service must be restarted with the right one', 60);
    if (this.conn) return this.conn;
    if (this.connecting) return this.connecting;
    if (!this.module) throw new Error('pkcs11 root of trust is not started');
    const wait = this.lastFailure ? this.lastFailure.at + this.lastFailure.waitMs - Date.now() : 0;
    if (this.lastFailure && wait > 0)
      throw tokenUnavailable(ckr(this.lastFailure.error) ?? this.lastFailure.error.message, Math.ceil(wait / 1000));
    this.connecting = (async () => {
      const module = this.module!;
      try {
        if (this.failedGeneration === undefined) module.ensureInitialized();
        else module.reinitialize(this.failedGeneration);
        this.conn = this.connect();
        this.lastFailure = undefined;
        this.failures = 0;
        this.failedGeneration = undefined;
        this.logger.warn(`the HSM token "${this.settings.tokenLabel}" is usable again`);
        return this.conn;
      } catch (err) {
        this.failed(err as Error, module.generation);
        if (err instanceof Pkcs11SetupError && err.pinRefused) {
          this.pinRefused = true;
          this.logger.error(
            `the HSM token "${this.settings.tokenLabel}" refused the PIN; not trying again, so as not to lock it: restart the service with the right PIN`,
          );
        }
        // The caller learns the return value only; where the library and token are is for the log.
        this.logger.warn(`the HSM token "${this.settings.tokenLabel}" is still not usable`, {
          error: (err as Error).message,
        });
        throw tokenUnavailable(ckr(err) ?? 'the token is not reachable');
      } finally {
        this.connecting = undefined;
      }
    })();
    return this.connecting;
  }

  private failed(error: Error, generation: number): void {
    this.lastFailure = {
      at: Date.now(),
      error,
      waitMs: Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** this.failures),
    };
    this.failures++;
    this.failedGeneration = generation;
  }

  /** Finds the token, logs in, finds (or creates) the KEKs and picks the wrapping mechanism. */
  private connect(): Connection {
    const module = this.module!;
    const { lib, api } = module;
    const s = this.settings;
    const slot = findSlot(lib, s);
    const session = lib.C_OpenSession(slot, api.CKF_SERIAL_SESSION | api.CKF_RW_SESSION);
    try {
      try {
        lib.C_Login(session, api.CKU_USER, this.pin);
      } catch (err) {
        const code = ckr(err);
        if (code === 'CKR_USER_ALREADY_LOGGED_IN') {
          // another root of trust in this process on the same token logged in (login state is per application)
        } else if (code && PIN_REFUSED.has(code)) {
          throw new Pkcs11SetupError(
            `crypto.pkcs11.pin (SVC_CRYPTO_PKCS11_PIN or SVC_CRYPTO_PKCS11_PIN_FILE): the token "${s.tokenLabel}" refused the PIN (${code})`,
            true,
          );
        } else throw err;
      }
      const keks = new Map<string, Buffer>();
      for (const [i, label] of s.kekLabels.entries())
        keks.set(label, findKek(lib, api, session, label, i === 0, s, this.logger));
      const mechanism = chooseMechanism(
        lib,
        api,
        slot,
        session,
        keks.get(s.kekLabels[0]!)!,
        { tokenLabel: s.tokenLabel, kekLabel: s.kekLabels[0]! },
        this.options,
        this.logger,
      );
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
        const code = ckr(err) ?? 'no session';
        // The token's session limit (shared with other nodes and tools): wait for one of ours to be free.
        if (code === 'CKR_SESSION_COUNT') {
          if (conn.open > 0) return new Promise((resolve, reject) => this.waiters.push({ resolve, reject, conn }));
          throw tokenUnavailable(code, 1);
        }
        if (this.conn === conn) {
          this.failed(err as Error, conn.generation);
          this.drop(conn, tokenUnavailable(code));
        }
        throw tokenUnavailable(code);
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
