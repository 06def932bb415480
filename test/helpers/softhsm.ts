import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import { debianTool } from './debian-tool.ts';
import { tempDir } from './service.ts';
import { serverMissing } from './test-server.ts';

/** Where Debian's softhsm2 package puts the PKCS#11 library. */
const MODULES = [
  '/usr/lib/softhsm/libsofthsm2.so',
  '/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so',
  '/usr/lib/aarch64-linux-gnu/softhsm/libsofthsm2.so',
];

export interface SoftHsm {
  /** The PKCS#11 library path (SVC_CRYPTO_PKCS11_MODULE). */
  module: string;
  /** The configuration file SoftHSM2 reads (SOFTHSM2_CONF), in a folder of this test's own. */
  conf: string;
  /** The token directory the configuration names. */
  tokenDir: string;
  /** SOFTHSM2_CONF for a service run in another process. */
  env: Record<string, string>;
  /** Initialises a new token in the first free slot. */
  initToken(label: string, pin: string, soPin?: string): void;
  /** Moves the token directory away (the token disappears for the library) and back. */
  disappear(): void;
  restore(): void;
}

/**
 * A SoftHSM2 of the test's own: a configuration and token directory in a temporary folder (never the
 * system's /var/lib/softhsm), set as SOFTHSM2_CONF for this process, so the in-process services and the
 * library read it. softhsm2 is installed from Debian's packages when missing; without it the test is
 * skipped, or failed under SVC_TEST_REQUIRE_SERVICES=1.
 */
export function softHsm(t: Test): SoftHsm | undefined {
  const util = debianTool('softhsm2-util', 'softhsm2');
  const module = MODULES.find((m) => existsSync(m));
  if (!util || !module)
    return serverMissing(t, 'SoftHSM2 (Debian package softhsm2) is not installed and cannot be installed here');
  const dir = tempDir('svc-kms-softhsm-');
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const tokenDir = path.join(dir, 'tokens');
  mkdirSync(tokenDir, { mode: 0o700 });
  const conf = path.join(dir, 'softhsm2.conf');
  writeFileSync(
    conf,
    `directories.tokendir = ${tokenDir}\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n`,
  );
  process.env.SOFTHSM2_CONF = conf;
  const env = { SOFTHSM2_CONF: conf };
  return {
    module,
    conf,
    tokenDir,
    env,
    initToken: (label, pin, soPin = 'so-pin-0000') => {
      execFileSync(util, ['--init-token', '--free', '--label', label, '--pin', pin, '--so-pin', soPin], {
        env: { ...process.env, ...env },
        stdio: 'ignore',
      });
    },
    disappear: () => renameSync(tokenDir, `${tokenDir}.away`),
    restore: () => renameSync(`${tokenDir}.away`, tokenDir),
  };
}
