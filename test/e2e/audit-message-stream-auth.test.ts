import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { natsServer } from '../helpers/nats-server.ts';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/until.ts';

const retrying = {
  SVC_AUDIT_MSGSTREAM_ENABLED: 'true',
  SVC_AUDIT_MSGSTREAM_INITIAL_BACKOFF_MS: '20',
  SVC_AUDIT_MSGSTREAM_MAX_BACKOFF_MS: '200',
  SVC_AUDIT_MSGSTREAM_MAX_RETRIES: '1000',
};
const MAY_PUBLISH = ['svc.audit', '$JS.API.>'];

/** The NKey seed in a credentials file: the secret that must never be printed. */
const seedOf = (file: string) => /-----BEGIN USER NKEY SEED-----\s+(\S+)/.exec(readFileSync(file, 'utf8'))![1];
const detail = async (svc: TestService) => (await svc.client().get('/readyz')).body.checks['sink:message-stream'];

t.test(
  'message-stream against a server that requires credentials: delivered as the NATS user of the credentials file',
  async (t) => {
    const nats = await natsServer(t, { auth: true });
    if (!nats) return;
    const credentials = await nats.credentials('svc-audit', MAY_PUBLISH);
    const svc = await startTestService({
      ...retrying,
      SVC_AUDIT_MSGSTREAM_SERVERS: nats.url,
      SVC_AUDIT_MSGSTREAM_CREDENTIALS_FILE: credentials,
      SVC_AUDIT_MSGSTREAM_AUTO_CREATE_STREAM: 'true',
    });
    t.teardown(() => svc.stop());
    for (let i = 0; i < 3; i++) await svc.client().post('/v1/keys', { spec: { name: `c${i}`, algorithm: 'AES' } });
    const primary = (await svc.client().get('/v1/audit?limit=1000')).body.records
      .reverse()
      .map((r: { id: string }) => r.id);
    let stored: Array<{ msgId: string }> = [];
    await until(
      async () => (stored = await nats.messages('SVC_AUDIT').catch(() => [])).length >= primary.length,
      'the events in the stream',
    );
    t.same(
      stored.slice(0, primary.length).map((m) => m.msgId),
      primary,
      'every event, in order',
    );
    t.equal((await detail(svc)).ok, true);
    t.notMatch(svc.logs.join('\n'), seedOf(credentials), 'the seed is never logged');
  },
);

t.test(
  'refused credentials and a user without publish rights show on /readyz; ' +
    'rotated credentials take effect at the next reconnect, nothing lost',
  async (t) => {
    const nats = await natsServer(t, { auth: true });
    if (!nats) return;
    await nats.createStream('SVC_AUDIT', 'svc.audit');

    const anonymous = await startTestService({ ...retrying, SVC_AUDIT_MSGSTREAM_SERVERS: nats.url });
    t.teardown(() => anonymous.stop());
    await anonymous.client().post('/v1/keys', { spec: { name: 'anon', algorithm: 'AES' } });
    await until(
      async () =>
        /refused a connection without credentials: .*Authorization Violation/i.test(
          (await detail(anonymous))?.detail ?? '',
        ),
      'readyz to report the refusal',
    );

    const configured = path.join(tempDir(), 'svc.creds');
    copyFileSync(await nats.credentials('read-only', ['$JS.API.>']), configured);
    const svc = await startTestService({
      ...retrying,
      SVC_AUDIT_MSGSTREAM_SERVERS: nats.url,
      SVC_AUDIT_MSGSTREAM_CREDENTIALS_FILE: configured,
    });
    t.teardown(() => svc.stop());
    for (let i = 0; i < 3; i++) await svc.client().post('/v1/keys', { spec: { name: `r${i}`, algorithm: 'AES' } });
    await until(
      async () => /Permissions Violation for Publish to "svc\.audit"/.test((await detail(svc))?.detail ?? ''),
      'readyz to report the missing publish right',
    );
    t.same(await nats.messages('SVC_AUDIT'), [], 'nothing stored while the user may not publish');

    // The operator issues a user that may publish and replaces the file; a reconnect picks it up.
    copyFileSync(await nats.credentials('svc-audit', MAY_PUBLISH), configured);
    await nats.stop();
    await nats.start();
    const primary = (await svc.client().get('/v1/audit?limit=1000')).body.records
      .reverse()
      .map((r: { id: string }) => r.id);
    let stored: Array<{ msgId: string }> = [];
    await until(
      async () => (stored = await nats.messages('SVC_AUDIT')).length >= primary.length,
      'the held-back events',
      30_000,
    );
    t.same(
      stored.slice(0, primary.length).map((m) => m.msgId),
      primary,
      'every held-back event, once, in order',
    );
    await until(async () => (await detail(svc)).ok === true, 'readyz to recover');
    t.notMatch(svc.logs.join('\n'), seedOf(configured), 'the seed is never logged');
  },
);

t.test(
  'a credentials file that cannot be read or is not NATS credentials ' +
    'fails the boot by name, never printing its contents',
  async (t) => {
    const dir = tempDir();
    const missing = path.join(dir, 'missing.creds');
    const env = { SVC_AUDIT_MSGSTREAM_ENABLED: 'true', SVC_AUDIT_MSGSTREAM_SERVERS: 'nats://127.0.0.1:4222' };
    await t.rejects(
      startTestService({ ...env, SVC_AUDIT_MSGSTREAM_CREDENTIALS_FILE: missing }),
      new RegExp(`credentials file ${missing} cannot be read \\(ENOENT\\)`),
    );
    const garbage = path.join(dir, 'garbage.creds');
    writeFileSync(garbage, 'SUAM-not-a-seed-but-secret-looking-4711\n');
    const refused = await startTestService({ ...env, SVC_AUDIT_MSGSTREAM_CREDENTIALS_FILE: garbage }).then(
      () => undefined,
      (err: Error) => err,
    );
    t.match(
      refused?.message,
      /audit \(env SVC_AUDIT_MSGSTREAM_\*\) \(message-stream sink\): credentials file .*garbage\.creds holds no NATS user JWT and NKey seed/,
    );
    t.notMatch(refused?.message, /4711/, 'the contents are not repeated');
  },
);
