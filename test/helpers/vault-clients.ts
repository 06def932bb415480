import path from 'node:path';
import type { Test } from 'tap';
import { DEBIAN_PYTHON, debianPythonModule, runClient } from './client-process.ts';
import { serverMissing } from './test-server.ts';

const HVAC_FIXTURE = path.resolve('test/fixtures/vault-hvac-client.py');

export interface HvacStep {
  op: string;
  args?: Record<string, unknown>;
}
export type HvacResult = { ok: any } | { error: { exception: string; errors: string[] | null; status: number } };

/**
 * Debian's hvac (python3-hvac) pointed at the service's transit door with a svc-kms bearer token as
 * its Vault token; installed from Debian when missing. `run` drives test/fixtures/vault-hvac-client.py.
 */
export async function hvacClient(t: Test, url: string, token: string, mount = 'transit') {
  if (!(await debianPythonModule('hvac', 'python3-hvac')))
    return serverMissing(t, "Debian's python3-hvac is not installed and could not be installed");
  const call = async (steps: HvacStep[]): Promise<{ version: string; results: HvacResult[] }> => {
    const input = JSON.stringify({ url, token, mount, steps });
    const ran = await runClient(DEBIAN_PYTHON, [HVAC_FIXTURE], {
      env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' },
      input,
    });
    if (ran.code !== 0) throw new Error(`vault-hvac-client.py exited ${ran.code}: ${ran.stderr}`);
    return JSON.parse(ran.stdout);
  };
  const { version } = await call([]);
  return {
    version,
    run: async (steps: HvacStep[]) => (await call(steps)).results,
  };
}

/** The answer of a step that must have succeeded. */
export const okOf = (result: HvacResult | undefined): any => {
  if (!result || !('ok' in result)) throw new Error(`expected an answer, got ${JSON.stringify(result)}`);
  return result.ok;
};

/** The refusal of a step that must have failed. */
export const errorOf = (result: HvacResult | undefined) => {
  if (!result || !('error' in result)) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return result.error;
};
