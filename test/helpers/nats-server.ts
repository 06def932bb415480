import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { connect, credsAuthenticator } from 'nats';
import type { Test } from 'tap';
import { natsOperator } from './nats-operator.ts';
import { tempDir } from './service.ts';
import { freePort, serverMissing } from './test-server.ts';

export interface NatsServer {
  url: string;
  /** Stops the server (its JetStream store stays) until `start`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  createStream(name: string, subject: string): Promise<void>;
  /** Every message in `stream`, in stream order, with its Nats-Msg-Id. */
  messages(stream: string): Promise<Array<{ msgId: string; value: any }>>;
  /** With `{ auth: true }`: writes a credentials file for a new user that may publish only to `publish`. */
  credentials(name: string, publish: string[]): Promise<string>;
}

/**
 * A nats-server with JetStream of this test's own on 127.0.0.1 (installed by scripts/test-services.sh).
 * With `auth`, the server trusts an operator of the test's own and refuses connections without valid
 * user credentials; the helper's own calls then connect as a user that may publish anywhere.
 */
export async function natsServer(t: Test, options: { auth?: boolean } = {}): Promise<NatsServer | undefined> {
  const bin = process.env.SVC_TEST_NATS_SERVER;
  if (!bin) {
    const why = 'nats-server not available (SVC_TEST_NATS_SERVER unset; run through npm test)';
    return serverMissing(t, why);
  }
  const [port, monitor] = [await freePort(), await freePort()];
  const store = tempDir('svc-nats-');
  const operator = options.auth ? await natsOperator(store) : undefined;
  const adminCredentials = await operator?.user('test-admin', ['>']);
  const configFile = path.join(store, 'nats.conf');
  writeFileSync(configFile, [`jetstream { store_dir: "${store}" }`, operator?.serverConfig ?? ''].join('\n'));
  let child: ChildProcess | undefined;
  const ready = async () => {
    try {
      return (await fetch(`http://127.0.0.1:${monitor}/healthz?js-enabled-only=true`)).ok;
    } catch {
      return false;
    }
  };
  const start = async () => {
    child = spawn(bin, ['-c', configFile, '-a', '127.0.0.1', '-p', String(port), '-m', String(monitor)], {
      stdio: 'ignore',
    });
    for (let i = 0; i < 200 && !(await ready()); i++) await new Promise((r) => setTimeout(r, 25));
  };
  const stop = async () => {
    if (!child) return;
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    child = undefined;
  };
  const url = `nats://127.0.0.1:${port}`;
  const withJs = async <T>(work: (nc: Awaited<ReturnType<typeof connect>>) => Promise<T>): Promise<T> => {
    const authenticator = adminCredentials ? credsAuthenticator(readFileSync(adminCredentials)) : undefined;
    const nc = await connect({ servers: url, authenticator });
    try {
      return await work(nc);
    } finally {
      await nc.close();
    }
  };
  await start();
  t.teardown(stop);
  return {
    url,
    stop,
    start,
    createStream: (name, subject) =>
      withJs(async (nc) => void (await (await nc.jetstreamManager()).streams.add({ name, subjects: [subject] }))),
    messages: (stream) =>
      withJs(async (nc) => {
        const jsm = await nc.jetstreamManager();
        const { state } = await jsm.streams.info(stream);
        const out: Array<{ msgId: string; value: any }> = [];
        for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
          const m = await jsm.streams.getMessage(stream, { seq });
          out.push({ msgId: m.header.get('Nats-Msg-Id'), value: m.json() });
        }
        return out;
      }),
    credentials: (name, publish) => {
      if (!operator) throw new Error('natsServer was started without { auth: true }');
      return operator.user(name, publish);
    },
  };
}
