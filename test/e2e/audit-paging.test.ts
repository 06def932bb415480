import t from 'tap';
import { freshDatabase } from '../helpers/databases.ts';
import { startTestService } from '../helpers/service.ts';

/**
 * GET /v1/audit reads newest first, so every record written while a client pages moves the older ones
 * down: paged by offset, the next page repeats records. Paged by the `next` cursor (`before`), each page
 * starts right after the last record read, whatever was written meanwhile.
 */
for (const kind of ['sqlite', 'postgresql'] as const) {
  t.test(`${kind}: pages read by cursor neither repeat nor skip a record while the trail grows`, async (t) => {
    const db = kind === 'sqlite' ? undefined : await freshDatabase(t, kind);
    if (kind !== 'sqlite' && !db) return;
    const service = await startTestService(db?.env ?? {});
    t.teardown(() => service.stop());
    const api = service.client('alice');
    const key = await api.key({ algorithm: 'AES' });
    const encrypt = () => api.post(`/v1/keys/${key}/encrypt`, { plaintextBase64: 'aGk=' });
    for (let i = 0; i < 6; i++) t.equal((await encrypt()).status, 200);
    const written = (await api.get(`/v1/audit?op=Encrypt&key=${key}&limit=100`)).body.records.map(
      (r: { id: string }) => r.id,
    );
    t.equal(written.length, 6);

    const byCursor: string[] = [];
    const byOffset: string[] = [];
    let before: string | undefined;
    for (let offset = 0; ; offset += 2) {
      const cursorPage = await api.get(
        `/v1/audit?op=Encrypt&key=${key}&limit=2${before ? `&before=${encodeURIComponent(before)}` : ''}`,
      );
      const offsetPage = await api.get(`/v1/audit?op=Encrypt&key=${key}&limit=2&offset=${offset}`);
      t.equal(cursorPage.status, 200);
      byCursor.push(...cursorPage.body.records.map((r: { id: string }) => r.id));
      byOffset.push(...offsetPage.body.records.map((r: { id: string }) => r.id));
      if (!cursorPage.body.hasMore) {
        t.notOk(cursorPage.body.next, 'the last page has no next cursor');
        break;
      }
      t.type(cursorPage.body.next, 'string', 'a page with more after it names where the next one starts');
      before = cursorPage.body.next;
      t.equal((await encrypt()).status, 200, 'another encrypt lands between two pages');
    }
    t.same(byCursor, written, 'by cursor: the six records, newest first, once each');
    t.not(new Set(byOffset).size, byOffset.length, 'by offset, the same reads repeat records (why the cursor exists)');

    const forged = await api.get(
      `/v1/audit?before=${Buffer.from("2026-01-01T00:00:00.000Z|1' or 1=1").toString('base64url')}`,
    );
    t.equal(forged.status, 400);
    t.match(forged.body, { error: 'InvalidField', message: /before must be the next cursor of an earlier audit page/ });
  });
}
