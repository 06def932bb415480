import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { startTestService, tempDir } from '../helpers/service.ts';
import { webhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { serverEntry } from '../helpers/server-entry.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SECRET = 'webhook-secret-of-the-receiver-0123456789';

/** `app/main.ts ARGS` as its own process, the way `npm start -- ARGS` runs it. */
function serverCommand(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...serverEntry(), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code) : 0, stdout, stderr });
      },
    );
  });
}

const deadLetters = (file: string): Array<{ event: { id: string } }> =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

/** A service whose webhook receiver was down for three key creations: their events are in the dead letter. */
async function deadLettered(
  t: Test,
): Promise<{ rx: WebhookReceiver; env: Record<string, string>; file: string; ids: string[] }> {
  const rx = await webhookReceiver();
  t.teardown(() => rx.close());
  await rx.down();
  const dir = tempDir();
  const svc = await startTestService(
    {
      SVC_AUDIT_WEBHOOK_ENABLED: 'true',
      SVC_AUDIT_WEBHOOK_URL: rx.url,
      SVC_AUDIT_WEBHOOK_SECRET: SECRET,
      SVC_AUDIT_WEBHOOK_MAX_RETRIES: '0',
      SVC_NODE_ID: 'node-a',
    },
    { dir },
  );
  for (let i = 0; i < 3; i++) await svc.client().post('/v1/keys', { spec: { name: `dl${i}`, algorithm: 'AES' } });
  await svc.stop(); // shutdown dead-letters whatever is still queued
  const file = path.join(dir, 'audit-webhook.deadletter.jsonl');
  const ids = deadLetters(file).map((d) => d.event.id);
  t.equal(ids.length, 3, 'the three creations are dead-lettered');
  return { rx, env: svc.env, file, ids };
}

t.test(
  'replay-dead-letters delivers what the webhook could not take, signed as before, once each; exit 0',
  async (t) => {
    const { rx, env, file, ids } = await deadLettered(t);
    await rx.up();
    const run = await serverCommand(['replay-dead-letters'], env);
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, new RegExp(`^webhook: 3 replayed, 3 delivered, 0 dead-lettered again \\(${file}\\)$`, 'm'));
    t.same(
      rx.accepted().map((e) => e.id),
      ids,
      "each dead-lettered event once, in the file's order",
    );
    for (const post of rx.posts)
      t.equal(
        post.headers['x-svc-signature'],
        `sha256=${createHmac('sha256', SECRET).update(post.body).digest('hex')}`,
        'signed like a first delivery',
      );
    t.notOk(existsSync(file), 'the dead-letter file is gone');

    const again = await serverCommand(['replay-dead-letters', '--sink', 'webhook'], env);
    t.equal(again.code, 0);
    t.match(again.stdout, /^webhook: 0 replayed, 0 delivered, 0 dead-lettered again/m, 'nothing left to replay');
    t.equal(rx.accepted().length, 3, 'nothing sent twice');
  },
);

t.test('replay-dead-letters against a receiver still down: dead-lettered anew, nothing lost, exit 1', async (t) => {
  const { env, file, ids } = await deadLettered(t);
  const run = await serverCommand(['replay-dead-letters'], env);
  t.equal(run.code, 1);
  t.match(run.stdout, /^webhook: 3 replayed, 0 delivered, 3 dead-lettered again/m);
  t.same(
    deadLetters(file).map((d) => d.event.id),
    ids,
    'the same events, back in the dead-letter file',
  );
});

t.test('replay-dead-letters names an unknown sink; --sink goes with nothing else', async (t) => {
  const { env } = await deadLettered(t);
  const unknown = await serverCommand(['replay-dead-letters', '--sink', 'siem'], env);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /no secondary audit sink is named "siem"; configured: webhook/);
  for (const [args, why] of [
    [['rewrap', '--sink', 'webhook'], /--sink goes only with replay-dead-letters/],
    [['replay-dead-letters', '--sink'], /--sink/],
    [['replay-dead-letters', '--print-config'], /--print-config does not go with replay-dead-letters/],
  ] as const) {
    const usage = await serverCommand([...args], env);
    t.equal(usage.code, 2, `${args.join(' ')}: exit 2`);
    t.match(usage.stderr, why);
  }
});
