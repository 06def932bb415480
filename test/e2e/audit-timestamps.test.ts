import t from 'tap';
import { startTestService } from '../helpers/service.ts';

/**
 * A caller's since/until is an RFC 3339 date-time or a plain date, or the call is refused naming the
 * field. Date.parse used to read " 10" as October 2001 and "-5" as May 2001, so
 * `verify?since=%2010&until=-5` answered 200 valid: true having checked nothing.
 */
t.test('since, until and expiresAt that are not RFC 3339 are 400 InvalidField naming the field', async (t) => {
  const service = await startTestService({ SVC_RATE_LIMIT_ENABLED: 'false' });
  t.teardown(() => service.stop());
  const api = service.client();
  await api.key({ algorithm: 'AES' });

  const refused = async (path: string, field: string) => {
    const res = await api.get(path);
    t.equal(res.status, 400, `${path} is refused`);
    t.match(
      res.body,
      { error: 'InvalidField', message: new RegExp(`^${field} must be an RFC 3339 date-time`) },
      `naming ${field}`,
    );
  };
  await refused('/v1/audit/verify?since=%2010&until=-5', 'since');
  await refused('/v1/audit/verify?until=-5', 'until');
  await refused('/v1/audit?since=2026-02-30', 'since');
  await refused('/v1/audit?until=2026-01-01T10:00', 'until');
  await refused('/v1/audit?since=1', 'since');

  const revoke = await api.post('/v1/tokens/revoke', { jti: 'some-token', expiresAt: ' 10' });
  t.equal(revoke.status, 400, 'a revocation whose expiresAt is " 10" is refused');
  t.match(revoke.body, { error: 'InvalidField', message: /^expiresAt must be an RFC 3339 date-time/ });

  // What is valid still selects what it says: an offset, a fraction, a plain date.
  const now = Date.now();
  const anHourAgo = new Date(now).toISOString().replace('Z', '+01:00'); // this wall-clock time in UTC+1 is an hour ago
  const recent = await api.get(`/v1/audit?since=${encodeURIComponent(anHourAgo)}`);
  t.equal(recent.status, 200);
  t.ok(
    (recent.body as { records: unknown[] }).records.length > 0,
    'records since an hour ago, written with an offset, are found',
  );
  const tomorrow = new Date(now + 86_400_000).toISOString().slice(0, 10);
  const none = await api.get(`/v1/audit?since=${tomorrow}`);
  t.equal(none.status, 200, 'a plain date is accepted');
  t.same((none.body as { records: unknown[] }).records, [], 'as midnight UTC: nothing is dated tomorrow');
  const window = await api.get(`/v1/audit/verify?since=${encodeURIComponent(new Date(now - 3_600_000).toISOString())}`);
  t.match(window.body, { valid: true }, 'a verification window with a fraction of a second is accepted');
  t.ok((window.body as { checked: number }).checked > 0, 'and checks the rows in it');
});
