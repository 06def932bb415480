import { execFileSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ML_DSA_SETS, PARAMETER_SETS, SLH_DSA_SETS } from '../../kernel/index.ts';
import { importKey } from '../helpers/byok.ts';
import type { ApiClient } from '../helpers/client.ts';
import { freshDatabase } from '../helpers/databases.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { runtimeHasPostQuantum } from '../helpers/post-quantum.ts';

/**
 * ML-DSA (FIPS 204) and SLH-DSA (FIPS 205) keys. On Node 24 (OpenSSL 3.5): every parameter set signs and
 * verifies, its signatures verify with node:crypto from the public key alone (and with the openssl CLI where
 * the machine's OpenSSL has the set), a changed message or signature fails, keys rotate, export, import, sign
 * in batches, are found by algorithm and survive a restart on SQLite and PostgreSQL. On Node 20, creating one
 * is 400 InvalidField naming Node 24, and nothing else changes.
 */

t.setTimeout(900_000);

const has = runtimeHasPostQuantum;
const MESSAGE = Buffer.from('release 4.2.0, sha256 9f86d081884c7d659a2feaa0c55ad015');
const b64 = (b: Buffer) => b.toString('base64');

async function pqKey(api: ApiClient, parameterSet: string, extra: Record<string, unknown> = {}): Promise<string> {
  const algorithm = parameterSet.startsWith('ML-') ? 'ML-DSA' : 'SLH-DSA';
  const made = await api.post('/v1/keys', { spec: { algorithm, parameterSet, ...extra }, activate: true });
  if (made.status !== 201) throw new Error(`${parameterSet}: ${made.status} ${JSON.stringify(made.body)}`);
  return made.body.id;
}

/** Which sets the openssl CLI of this machine signs and verifies (Debian 12's OpenSSL 3.0: none). */
function opensslSets(): Set<string> {
  try {
    const listed = execFileSync('openssl', ['list', '-signature-algorithms'], { encoding: 'utf8' });
    return new Set(PARAMETER_SETS.filter((set) => listed.toUpperCase().includes(set.toUpperCase())));
  } catch {
    return new Set();
  }
}

if (!has) {
  t.test('on a runtime without ML-DSA and SLH-DSA, creating one is 400 naming Node 24', async (t) => {
    const svc = await startTestService();
    t.teardown(() => svc.stop());
    const api = svc.client('alice');
    for (const [algorithm, parameterSet] of [
      ['ML-DSA', 'ML-DSA-65'],
      ['SLH-DSA', 'SLH-DSA-SHA2-128s'],
      ['ML-DSA', undefined],
    ]) {
      const made = await api.post('/v1/keys', { spec: { algorithm, ...(parameterSet ? { parameterSet } : {}) } });
      t.equal(made.status, 400, `${algorithm} ${parameterSet}`);
      t.match(made.body, { error: 'InvalidField', message: /Node 24/ });
    }
    t.equal((await api.post('/v1/keys', { spec: { algorithm: 'EdDSA' } })).status, 201, 'Ed25519 as before');
  });
} else {
  t.test('every parameter set signs and verifies; node:crypto verifies from the public key alone', async (t) => {
    const svc = await startTestService();
    t.teardown(() => svc.stop());
    const api = svc.client('alice');
    const cli = opensslSets();
    t.comment(`openssl CLI sets: ${[...cli].join(', ') || 'none (its OpenSSL predates ML-DSA and SLH-DSA)'}`);
    const dir = tempDir();
    for (const set of PARAMETER_SETS) {
      const id = await pqKey(api, set);
      const signed = await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64(MESSAGE) });
      t.equal(signed.status, 200, `${set}: signs`);
      t.match(signed.body, { algorithm: set, keyVersion: 1 });
      const signature = Buffer.from(signed.body.signatureBase64, 'base64');
      const pem = (await api.get(`/v1/keys/${id}/public-key`)).body;
      t.match(pem, { parameterSet: set, publicKeyPem: /^-----BEGIN PUBLIC KEY-----/ });
      const publicKey = createPublicKey(pem.publicKeyPem);
      t.equal(publicKey.asymmetricKeyType, set.toLowerCase(), `${set}: the SPKI names the set`);
      t.ok(verify(null, MESSAGE, publicKey, signature), `${set}: node:crypto verifies it from the public key`);
      const changed = Buffer.from(MESSAGE);
      changed[0]! ^= 1;
      t.notOk(verify(null, changed, publicKey, signature), `${set}: not for a changed message`);
      const valid = await api.post(`/v1/keys/${id}/verify`, {
        messageBase64: b64(MESSAGE),
        signatureBase64: signed.body.signatureBase64,
      });
      t.match(valid.body, { valid: true, keyVersion: 1 }, `${set}: the service verifies it`);
      const tampered = Buffer.from(signature);
      tampered[10]! ^= 1;
      const refused = await api.post(`/v1/keys/${id}/verify`, {
        messageBase64: b64(MESSAGE),
        signatureBase64: b64(tampered),
      });
      t.equal(refused.body.valid, false, `${set}: a changed signature is not valid`);
      const other = await api.post(`/v1/keys/${id}/verify`, {
        messageBase64: b64(changed),
        signatureBase64: signed.body.signatureBase64,
      });
      t.equal(other.body.valid, false, `${set}: nor for a changed message`);
      const digest = await api.post(`/v1/keys/${id}/sign`, { digestBase64: b64(Buffer.alloc(32)) });
      t.match(digest.body, { error: 'InvalidField', message: /signs the message itself/ });
      if (cli.has(set)) {
        const files = ['pub.pem', 'msg', 'sig'].map((name) => path.join(dir, `${set}-${name}`));
        writeFileSync(files[0]!, pem.publicKeyPem);
        writeFileSync(files[1]!, MESSAGE);
        writeFileSync(files[2]!, signature);
        const out = execFileSync(
          'openssl',
          ['pkeyutl', '-verify', '-pubin', '-inkey', files[0]!, '-rawin', '-in', files[1]!, '-sigfile', files[2]!],
          { encoding: 'utf8' },
        );
        t.match(out, /Signature Verified Successfully/, `${set}: the openssl CLI verifies it`);
      }
    }
  });

  t.test('rotate, batches, locate by algorithm, export and import', async (t) => {
    const svc = await startTestService();
    t.teardown(() => svc.stop());
    const api = svc.client('alice');
    const id = await pqKey(api, 'ML-DSA-65', { exportable: true, name: 'firmware-signer' });
    const first = (await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64(MESSAGE) })).body;
    t.equal((await api.post(`/v1/keys/${id}/rotate`, {})).status, 200);
    const second = (await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64(MESSAGE) })).body;
    t.equal(second.keyVersion, 2);
    const old = await api.post(`/v1/keys/${id}/verify`, {
      messageBase64: b64(MESSAGE),
      signatureBase64: first.signatureBase64,
    });
    t.match(old.body, { valid: true, keyVersion: 1 }, 'a version 1 signature verifies after the rotation');

    const batch = await api.post(`/v1/keys/${id}/sign`, {
      items: [
        { messageBase64: b64(MESSAGE) },
        { messageBase64: b64(Buffer.from('second')) },
        { digestBase64: b64(Buffer.alloc(32)) },
      ],
    });
    t.equal(batch.status, 200);
    t.match(batch.body.results, [
      { algorithm: 'ML-DSA-65', keyVersion: 2 },
      { keyVersion: 2 },
      { error: 'InvalidField' },
    ]);
    const verified = await api.post(`/v1/keys/${id}/verify`, {
      items: [
        { messageBase64: b64(MESSAGE), signatureBase64: batch.body.results[0].signatureBase64 },
        { messageBase64: b64(MESSAGE), signatureBase64: batch.body.results[1].signatureBase64 },
      ],
    });
    t.match(verified.body.results, [{ valid: true }, { valid: false }]);

    const slh = await pqKey(api, 'SLH-DSA-SHA2-128f');
    const located = await api.get('/v1/keys?algorithm=ML-DSA');
    t.same(
      located.body.keys.map((k: { id: string }) => k.id),
      [id],
      'Locate by algorithm finds the ML-DSA key',
    );
    t.same(
      (await api.get('/v1/keys?algorithm=SLH-DSA')).body.keys.map((k: { id: string }) => k.id),
      [slh],
    );

    const exported = await api.post(`/v1/keys/${id}/export`, { version: 2 });
    t.match(exported.body, { format: 'pkcs8-der', keyVersion: 2 });
    const imported = await importKey(
      api,
      { algorithm: 'ML-DSA', parameterSet: 'ML-DSA-65' },
      Buffer.from(exported.body.materialBase64, 'base64'),
    );
    t.equal(imported.status, 201, JSON.stringify(imported.body));
    t.match(imported.body, { origin: 'imported', spec: { algorithm: 'ML-DSA', parameterSet: 'ML-DSA-65' } });
    t.equal((await api.post(`/v1/keys/${imported.body.id}/activate`, {})).status, 200);
    const byImported = (await api.post(`/v1/keys/${imported.body.id}/sign`, { messageBase64: b64(MESSAGE) })).body;
    const publicPem = (await api.get(`/v1/keys/${id}/public-key?version=2`)).body.publicKeyPem;
    t.ok(
      verify(null, MESSAGE, createPublicKey(publicPem), Buffer.from(byImported.signatureBase64, 'base64')),
      "the imported key's signature verifies under the exported version's public key",
    );
    const wrongSet = await importKey(
      api,
      { algorithm: 'ML-DSA', parameterSet: 'ML-DSA-44' },
      Buffer.from(exported.body.materialBase64, 'base64'),
    );
    t.match(wrongSet.body, { error: 'InvalidField', message: /the spec asks for ML-DSA-44/ });
    t.match((await api.get(`/v1/keys/${id}/jwks`)).body, { error: 'IllegalOperation', message: /JOSE/ });
    const bad = await api.post('/v1/keys', { spec: { algorithm: 'ML-DSA', parameterSet: 'SLH-DSA-SHA2-128s' } });
    t.match(bad.body, { error: 'InvalidField', message: /ML-DSA-44, ML-DSA-65, ML-DSA-87/ });
  });

  t.test('a key survives a restart on SQLite and on PostgreSQL', async (t) => {
    const sqliteDir = tempDir();
    const sqlite = { SVC_JOURNAL_KIND: 'rdb-embedded' };
    const database = await freshDatabase(t, 'postgresql');
    const backends: Array<[string, Record<string, string>, string | undefined]> = [
      ['SQLite', sqlite, sqliteDir],
      ...(database ? [['PostgreSQL', database.env, undefined] as [string, Record<string, string>, undefined]] : []),
    ];
    for (const [name, env, dir] of backends) {
      const keep = dir ?? tempDir();
      const first = await startTestService(env, { dir: keep });
      const api = first.client('alice');
      const ids = [];
      for (const set of [ML_DSA_SETS[0], SLH_DSA_SETS[1]]) ids.push([set, await pqKey(api, set)] as const);
      const signatures = [];
      for (const [, id] of ids)
        signatures.push((await api.post(`/v1/keys/${id}/sign`, { messageBase64: b64(MESSAGE) })).body);
      await first.stop();
      const again = await startTestService(env, { dir: keep });
      t.teardown(() => again.stop());
      const api2 = again.client('alice');
      for (const [i, [set, id]] of ids.entries()) {
        const read = (await api2.get(`/v1/keys/${id}`)).body;
        t.match(read.spec, { parameterSet: set }, `${name}: ${set} read back`);
        const valid = await api2.post(`/v1/keys/${id}/verify`, {
          messageBase64: b64(MESSAGE),
          signatureBase64: signatures[i]!.signatureBase64,
        });
        t.equal(valid.body.valid, true, `${name}: ${set} verifies what it signed before the restart`);
        t.equal(
          (await api2.post(`/v1/keys/${id}/sign`, { messageBase64: b64(MESSAGE) })).status,
          200,
          `${name}: ${set} signs`,
        );
      }
    }
  });
}
