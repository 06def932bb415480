import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import type { Test } from 'tap';
import { freePort, serverMissing } from './test-server.ts';

export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/**
 * A redis-server of this test's own on 127.0.0.1 (installed by scripts/test-services.sh), which it may stop and start.
 */
export async function privateRedis(t: Test): Promise<PrivateRedis | undefined> {
  const bin = process.env.SVC_TEST_REDIS_SERVER;
  if (!bin) {
    const why = 'redis-server not available (SVC_TEST_REDIS_SERVER unset; run through npm test)';
    return serverMissing(t, why);
  }
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}/0`;
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(bin, ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 100 && !(await answers(url)); i++) await new Promise((r) => setTimeout(r, 50));
  };
  const stop = async () => {
    if (!child) return;
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    child = undefined;
  };
  await start();
  t.teardown(stop);
  return { url, stop, start };
}
