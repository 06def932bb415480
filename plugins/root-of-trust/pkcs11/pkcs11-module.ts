import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Pkcs11Js from 'pkcs11js';

export type Pkcs11Api = typeof Pkcs11Js;
export type Pkcs11 = Pkcs11Js.PKCS11;

/** The binding, loaded on first use only: importing a root-of-trust plugin must not load a native module. */
export function pkcs11Api(): Pkcs11Api {
  return createRequire(import.meta.url)('pkcs11js') as Pkcs11Api;
}

/**
 * One PKCS#11 library loaded into this process. A library may be initialised once per process, so every
 * root of trust on the same library shares this object (counted: the last to stop finalises it).
 *
 * `generation` goes up each time the library is finalised and initialised again, which is how a token
 * that went away is found again (SoftHSM2, like many vendors' libraries, lists tokens only at
 * C_Initialize): sessions opened under an older generation are dead, and a user that saw a failure under
 * generation g asks for `reinitialize(g)`, so several users failing together re-initialise it once.
 */
export class Pkcs11Module {
  readonly api = pkcs11Api();
  readonly lib: Pkcs11 = new this.api.PKCS11();
  generation = 0;
  private initialized = false;
  private users = 0;

  private constructor(readonly path: string) {}

  private static readonly loaded = new Map<string, Pkcs11Module>();

  /** The shared module for a library path, loaded (dlopen) on the first call; throws if it cannot be loaded. */
  static acquire(path: string): Pkcs11Module {
    // By the file itself: two paths (a symlink) to one library are one library, initialised once.
    const key = realpathOrSame(path);
    let module = Pkcs11Module.loaded.get(key);
    if (!module) {
      module = new Pkcs11Module(path);
      module.lib.load(path);
      Pkcs11Module.loaded.set(key, module);
    }
    module.users++;
    return module;
  }

  /** Initialises the library if it is not (asynchronous calls run on other threads: the OS's locks). */
  ensureInitialized(): void {
    if (this.initialized) return;
    try {
      this.lib.C_Initialize({ flags: this.api.CKF_OS_LOCKING_OK });
    } catch (err) {
      if ((err as Error).message !== 'CKR_CRYPTOKI_ALREADY_INITIALIZED') throw err;
    }
    this.initialized = true;
  }

  /** Finalises and initialises again, unless another user already did since `seen`. */
  reinitialize(seen: number): void {
    if (this.generation === seen) {
      this.generation++;
      if (this.initialized) {
        this.initialized = false;
        try {
          this.lib.C_Finalize();
        } catch {
          // a library that lost its device may refuse to finalise cleanly; initialising again is what counts
        }
      }
    }
    this.ensureInitialized();
  }

  /**
   * The last user gone, the library is finalised (it stays loaded: unloading some vendors' libraries crashes at exit).
   */
  release(): void {
    if (--this.users > 0 || !this.initialized) return;
    this.initialized = false;
    try {
      this.lib.C_Finalize();
    } catch {
      // nothing more to release
    }
  }
}

function realpathOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
