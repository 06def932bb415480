import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import t from 'tap';
import { SvcError } from '../../kernel/errors.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { systemClock } from '../../kernel/ports/clock.ts';
import { KnexAuditSink } from '../../plugins/audit-sink/knex/knex-audit-sink.ts';
import { AuditReader } from '../../plugins/audit-sink/knex/reader-client.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { seedAudit } from '../helpers/audit-seed.ts';
import { tempDir } from '../helpers/service.ts';
import { terminateThread } from '../helpers/terminate-thread.ts';

const quiet = createStderrLogger('error', () => {});

t.test(
  'a reader worker that dies fails the requests it held with 503, and the next request starts a new one',
  async (t) => {
    const file = path.join(tempDir(), 'audit.db');
    const sink = new KnexAuditSink(sqliteKnexSettings(file), 0, systemClock, quiet, 'kms-1');
    await sink.start();
    t.teardown(() => sink.stop());
    await seedAudit(sink, 2_000, new Date());
    const reader = new AuditReader({ kind: 'sqlite', file }, quiet);
    t.teardown(() => reader.stop());
    t.match(await reader.request('verify', { full: true }), { valid: true, checked: 2_000 });

    // The worker dies (out of memory, a native crash) while it owes an answer.
    const held = reader.request('verify', { full: true });
    await terminateThread((reader as unknown as { worker: Worker }).worker);
    const lost = await held.then(
      () => undefined,
      (err: unknown) => err,
    );
    t.ok(
      lost instanceof SvcError && lost.code === 'ServiceUnavailable',
      `the held request is 503: ${(lost as Error)?.message}`,
    );
    t.match(
      await reader.request('verify', { full: true }),
      { valid: true, checked: 2_000 },
      'a new worker answers the next request',
    );
  },
);

t.test('a database the reader cannot reach is 503 ServiceUnavailable, as on the request path', async (t) => {
  // A port nothing listens on: taken, then released.
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
  const reader = new AuditReader(
    {
      kind: 'postgresql',
      connection: { host: '127.0.0.1', port, database: 'svc', user: 'svc', password: 'x' },
      pool: { max: 2, acquireTimeoutMs: 1000, bootTimeoutMs: 1000 },
    },
    quiet,
  );
  t.teardown(() => reader.stop());
  const err = await reader.request('verify', {}).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof SvcError, 'an SvcError crosses the thread');
  t.match(err, {
    code: 'ServiceUnavailable',
    status: 503,
    message: /audit database \(PostgreSQL at 127\.0\.0\.1:\d+\/svc\) is unreachable/,
  });
});

t.test('stop ends the worker; a request after stop is 503', async (t) => {
  const file = path.join(tempDir(), 'audit.db');
  const sink = new KnexAuditSink(sqliteKnexSettings(file), 0, systemClock, quiet, 'kms-1');
  await sink.start();
  t.teardown(() => sink.stop());
  const reader = new AuditReader({ kind: 'sqlite', file }, quiet);
  t.match(await reader.request('verify', {}), { valid: true });
  const worker = (reader as unknown as { worker: Worker }).worker;
  let exited = false;
  worker.once('exit', () => (exited = true));
  await reader.stop();
  t.ok(exited, 'the worker thread ended');
  await t.rejects(reader.request('verify', {}), { code: 'ServiceUnavailable' });
});
