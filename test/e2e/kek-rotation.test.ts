import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Database } from '../../plugins/sql-support/sqlite-driver.ts';
import t from 'tap';
import { b64 } from '../helpers/client.ts';
import { everyByte, recoverAesMaterial } from '../helpers/forensics.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { serverEntry } from '../helpers/server-entry.ts';

const KEK1 = Buffer.alloc(32, 0x11);
const KEK2 = Buffer.alloc(32, 0x22);
const ROOT = path.resolve(import.meta.dirname, '../..');

t.test(
  'rewrap moves every key to the new KEK; once the old KEK is dropped, a copy taken before a destroy is unreadable',
  async (t) => {
    const dir = tempDir();
    const env = { SVC_JOURNAL_KIND: 'rdb-embedded' };
    const first = await startTestService({ ...env, SVC_CRYPTO_LOCAL_KEK: KEK1.toString('base64') }, { dir });
    const api = first.client('ops');
    const kept = await api.key({ algorithm: 'AES' });
    const sealed = (await api.post(`/v1/keys/${kept}/encrypt`, { plaintextBase64: b64('kept secret') })).body
      .ciphertextBase64;
    const doomed = await api.key({ algorithm: 'AES' });
    const journalFile = path.join(dir, 'journal.db');
    // The attacker's copy of the data directory (journal, its WAL, audit), taken before the destroy.
    const copy = everyByte(dir);
    t.equal((await api.post(`/v1/keys/${doomed}/compromise`, { reason: 'drill' })).status, 200);
    t.equal((await api.call('DELETE', `/v1/keys/${doomed}`)).status, 200);
    await first.stop();

    const out = execFileSync(process.execPath, [...serverEntry(), 'rewrap'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH!,
        ...first.env,
        SVC_CRYPTO_LOCAL_KEK: KEK2.toString('base64'),
        SVC_CRYPTO_LOCAL_PREVIOUS_KEKS: KEK1.toString('base64'),
      },
      encoding: 'utf8',
    });
    t.match(
      out,
      /^rewrapped 1 key-wrapping key\(s\) under local:[0-9a-f]{16}$/m,
      'one live key moved; the destroyed one has nothing left to move',
    );

    const second = await startTestService({ ...env, SVC_CRYPTO_LOCAL_KEK: KEK2.toString('base64') }, { dir });
    t.teardown(() => second.stop());
    const again = second.client('ops');
    t.same(
      (await again.post(`/v1/keys/${kept}/decrypt`, { ciphertextBase64: sealed })).body.plaintextBase64,
      b64('kept secret'),
      'the kept key works under the new KEK alone',
    );
    const trail = (await again.get('/v1/audit?op=Rotate')).body.records;
    t.match(trail[0], {
      principal: { subject: 'svc-system', kind: 'Service' },
      operation: 'Rotate',
      resource: /^kek:local:[0-9a-f]{16}$/,
      outcome: 'Success',
      context: { rewrapped: '1' },
    });

    const db = new Database(journalFile, { readonly: true });
    const materialId = JSON.parse(
      (db.prepare('select payload from svc_key_events where key_id = ? and seq = 1').get(doomed) as { payload: string })
        .payload,
    ).materialId;
    db.close();
    t.ok(
      recoverAesMaterial(copy, KEK1, doomed, materialId).length > 0,
      'control: with the old KEK the copy still gives the destroyed key back',
    );
    t.same(
      recoverAesMaterial(copy, KEK2, doomed, materialId),
      [],
      'with the KEKs the deployment holds now, the copy gives nothing',
    );
  },
);
