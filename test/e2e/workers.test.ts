import { randomUUID } from 'node:crypto';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { until } from '../helpers/until.ts';
import { connectionPerWorker, Connection, startWorkerNode } from '../helpers/worker-node.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

for (const backend of ['postgresql', 'sqlite'] as const) {
  t.test(`a node of two workers on ${backend === 'sqlite' ? 'rdb-embedded (SQLite WAL)' : 'PostgreSQL'}`, async (t) => {
    const db = backend === 'postgresql' ? await freshDatabase(t, 'postgresql') : undefined;
    if (backend === 'postgresql' && !db) return;
    const node = await startWorkerNode(2, db);
    t.teardown(() => node.close());
    const conns = await connectionPerWorker(node, 2);
    t.teardown(() => Promise.all([...conns.values()].map((c) => c.close())));
    const w1 = conns.get('w1')!;
    const w2 = conns.get('w2')!;
    const created = async (via: Connection, spec: Record<string, unknown>) => {
      const key = await via.call('POST', '/v1/keys', { spec: { name: `k-${randomUUID()}`, ...spec } });
      if (key.status !== 201) throw new Error(`create answered ${key.status}: ${JSON.stringify(key.body)}`);
      const activated = await via.call('POST', `/v1/keys/${key.body.id}/activate`);
      if (activated.status !== 200)
        throw new Error(`activate answered ${activated.status}: ${JSON.stringify(activated.body)}`);
      return key.body.id as string;
    };

    t.test('the two connections are served by different workers, each its own node', async (t) => {
      const a = await w1.call('GET', '/v1/keys?limit=1');
      t.equal(
        await node.servedBy(
          (
            await w1.call('POST', `/v1/keys/${await created(w1, { algorithm: 'AES' })}/encrypt`, {
              plaintextBase64: b64('x'),
            })
          ).requestId,
        ),
        'w1',
      );
      t.equal(
        await node.servedBy(
          (
            await w2.call('POST', `/v1/keys/${await created(w2, { algorithm: 'AES' })}/encrypt`, {
              plaintextBase64: b64('x'),
            })
          ).requestId,
        ),
        'w2',
      );
      t.equal(a.status, 200);
    });

    t.test(
      'a key compromised through one worker is refused for encrypt through the other at its next use',
      async (t) => {
        const id = await created(w1, { algorithm: 'AES' });
        t.equal(
          (await w2.call('POST', `/v1/keys/${id}/encrypt`, { plaintextBase64: b64('cached') })).status,
          200,
          'w2 has used (and cached) the key',
        );
        t.equal((await w1.call('POST', `/v1/keys/${id}/compromise`, { reason: 'stolen laptop' })).status, 200);
        const refused = await w2.call('POST', `/v1/keys/${id}/encrypt`, { plaintextBase64: b64('after') });
        t.equal(refused.status, 409);
        t.match(refused.body.message, /Compromised/);
      },
    );

    t.test(
      'a revoke through one worker is refused for encrypt through the other; a destroy is seen by the next decrypt',
      async (t) => {
        const id = await created(w2, { algorithm: 'AES' });
        const sealed = await w1.call('POST', `/v1/keys/${id}/encrypt`, { plaintextBase64: b64('secret') });
        t.equal(sealed.status, 200);
        t.equal((await w2.call('POST', `/v1/keys/${id}/revoke`, { reason: 'retired' })).status, 200);
        t.equal(
          (await w1.call('POST', `/v1/keys/${id}/encrypt`, { plaintextBase64: b64('x') })).status,
          409,
          'w1 refuses to encrypt under the revoked key',
        );
        const opened = await w1.call('POST', `/v1/keys/${id}/decrypt`, {
          ciphertextBase64: sealed.body.ciphertextBase64,
        });
        t.equal(
          opened.body.plaintextBase64,
          b64('secret'),
          'a revoked key still decrypts, through w1 (which now caches its revoked state)',
        );
        t.equal((await w2.call('DELETE', `/v1/keys/${id}`)).status, 200, 'destroyed through w2');
        const after = await w1.call('POST', `/v1/keys/${id}/decrypt`, {
          ciphertextBase64: sealed.body.ciphertextBase64,
        });
        t.not(after.status, 200, 'w1 no longer decrypts under the destroyed key');
        t.equal((await w1.call('GET', `/v1/keys/${id}`)).body.state, 'Destroyed');
      },
    );

    t.test('a mixed load over both workers: every answer right, every write seen by the other worker', async (t) => {
      const keys = await Promise.all([w1, w2, w1, w2].map((c) => created(c, { algorithm: 'AES' })));
      const signer = await created(w1, { algorithm: 'EdDSA' });
      const calls = Array.from({ length: 160 }, async (_, i) => {
        const [here, there] = i % 2 ? [w1, w2] : [w2, w1];
        const key = keys[i % keys.length]!;
        if (i % 16 === 5) return { i, kind: 'rotate', r: await here.call('POST', `/v1/keys/${key}/rotate`, {}) };
        if (i % 8 === 3)
          return {
            i,
            kind: 'sign',
            r: await here.call('POST', `/v1/keys/${signer}/sign`, { messageBase64: b64(`m${i}`) }),
          };
        const sealed = await here.call('POST', `/v1/keys/${key}/encrypt`, { plaintextBase64: b64(`p${i}`) });
        if (sealed.status !== 200) return { i, kind: 'encrypt', r: sealed };
        const opened = await there.call('POST', `/v1/keys/${key}/decrypt`, {
          ciphertextBase64: sealed.body.ciphertextBase64,
        });
        return { i, kind: 'roundtrip', r: opened, ok: opened.body.plaintextBase64 === b64(`p${i}`) };
      });
      const results = await Promise.all(calls);
      t.same(
        results
          .filter((x) => x.r.status !== 200)
          .map((x) => ({ i: x.i, kind: x.kind, status: x.r.status, body: x.r.body })),
        [],
        'every call answered 200',
      );
      t.same(
        results.filter((x) => x.kind === 'roundtrip' && !x.ok).map((x) => x.i),
        [],
        'what one worker sealed the other opened',
      );
      const rotations = results.filter((x) => x.kind === 'rotate').length;
      const versions = await Promise.all(
        keys.map(async (k) => (await w2.call('GET', `/v1/keys/${k}`)).body.currentVersion as number),
      );
      t.equal(
        versions.reduce((a, b) => a + b, 0),
        keys.length + rotations,
        'each rotation made exactly one new version, seen by both workers',
      );
    });

    t.test('/metrics counts for the whole node, /readyz names every worker, logs name the worker', async (t) => {
      const count = async () => {
        const text = (await w2.call('GET', '/metrics')).body as string;
        return Number(/^svc_keys_op_total\{operation="Activate"\} (\d+)/m.exec(text)?.[1] ?? 0);
      };
      const before = await count();
      await created(w2, { algorithm: 'AES' });
      t.equal(await count(), before + 1, 'an activation through w2 is counted');
      await created(w1, { algorithm: 'AES' });
      t.equal(await count(), before + 2, 'and so is one through w1, read through w2');
      const ready = await w1.call('GET', '/readyz');
      t.equal(ready.status, 200);
      t.equal(ready.body.status, 'ready');
      t.match(ready.body.checks, {
        'worker:w1': { ok: true },
        'worker:w2': { ok: true },
        'w1:journal': { ok: true },
        'w2:journal': { ok: true },
        'w2:audit': { ok: true },
      });
      t.match(node.proc.stderr(), /"worker":"w1"/);
      t.match(node.proc.stderr(), /"worker":"w2"/);
    });

    t.test('a worker killed with SIGKILL is replaced, and no acknowledged write is lost', async (t) => {
      const victim = node.workerPids().get('w2')!;
      t.ok(victim && alive(victim), 'w2 runs');
      const acknowledged: string[] = [];
      const failures: string[] = [];
      let stop = false;
      // Creates go on over fresh connections, so some land on the dying worker and some on the other.
      const load = (async () => {
        for (let i = 0; !stop; i++) {
          const c = new Connection(node.url, `load${i}`, 'ops', 5_000);
          try {
            const r = await c.call('POST', '/v1/keys', { spec: { name: `during-${i}`, algorithm: 'AES' } });
            if (r.status === 201) acknowledged.push(r.body.id);
          } catch (err) {
            failures.push((err as Error).message);
            // a request on the worker being killed may get no answer: not acknowledged, so nothing is owed
          } finally {
            await c.close().catch(() => undefined);
          }
        }
      })();
      await until(() => acknowledged.length >= 10, 'some writes before the kill');
      process.kill(victim, 'SIGKILL');
      await until(
        () => /"msg":"worker replaced","worker":"w2"/.test(node.proc.stderr()),
        'the replacement of w2',
        60_000,
      );
      const atReplacement = acknowledged.length;
      await until(() => acknowledged.length >= atReplacement + 10, 'writes after the replacement', 60_000);
      stop = true;
      await load;
      t.comment(`${failures.length} requests failed without an answer: ${[...new Set(failures)].join('; ')}`);
      await until(() => node.workerPids().get('w2') !== victim, 'the new w2 to log its pid');
      const replacement = node.workerPids().get('w2')!;
      t.not(replacement, victim, 'w2 runs in a new process');
      t.ok(alive(replacement));
      t.match(node.proc.stderr(), /"msg":"worker exited; starting a replacement","worker":"w2".*"signal":"SIGKILL"/);
      const reader = new Connection(node.url, 'reader');
      const missing: string[] = [];
      for (const id of acknowledged) if ((await reader.call('GET', `/v1/keys/${id}`)).status !== 200) missing.push(id);
      t.same(missing, [], `all ${acknowledged.length} acknowledged creates are there`);
      await until(
        async () => (await reader.call('GET', '/readyz')).status === 200,
        'the node ready again with its new w2',
      );
      await reader.close();
    });

    if (backend === 'sqlite') {
      t.test('a worker that keeps dying soon after it starts is replaced after a growing pause', async (t) => {
        const replacedLines = () => (node.proc.stderr().match(/"msg":"worker replaced","worker":"w1"/g) ?? []).length;
        for (let kill = 1; kill <= 3; kill++) {
          const before = replacedLines();
          const killed = node.workerPids().get('w1')!;
          process.kill(killed, 'SIGKILL');
          await until(() => replacedLines() > before, `replacement ${kill} of w1`, 90_000);
          // The primary says "replaced" when the new worker serves, which may be before the worker's own line with its
          // pid.
          await until(() => node.workerPids().get('w1') !== killed, `the pid of replacement ${kill} of w1`);
        }
        const pauses = [
          ...node.proc
            .stderr()
            .matchAll(/"msg":"worker exited; starting a replacement","worker":"w1".*?"restartInMs":(\d+)/g),
        ].map((m) => Number(m[1]));
        t.equal(pauses.length, 3);
        t.ok(pauses[2]! >= 500, `the third replacement in a row waited (pauses ${pauses.join(', ')} ms)`);
        t.ok(pauses[2]! >= pauses[1]! && pauses[1]! >= pauses[0]!, 'each pause at least as long as the one before');
        const probe = new Connection(node.url, 'ready');
        await until(async () => (await probe.call('GET', '/readyz')).status === 200, 'the node ready again');
        await probe.close();
      });
    }

    t.test('SIGTERM drains every worker and the primary exits 0, leaving no process behind', async (t) => {
      const pids = [...node.workerPids().values()].filter(alive);
      t.equal(pids.length, 2);
      await Promise.all([...conns.values()].map((c) => c.close()));
      node.proc.child.kill('SIGTERM');
      t.equal(await node.proc.exited, 0);
      await until(() => !pids.some(alive), 'every worker gone');
      const shutdowns = node.proc
        .stderr()
        .split('\n')
        .filter((l) => l.includes('"shutting down"'))
        .map((l) => JSON.parse(l) as { msg: string; worker?: string; signal?: string });
      t.same(
        shutdowns
          .filter((e) => e.msg === 'shutting down' && e.signal === 'SIGTERM' && /^w\d$/.test(e.worker ?? ''))
          .map((e) => e.worker)
          .sort(),
        ['w1', 'w2'],
        'each worker ran its own shutdown',
      );
    });
  });
}
