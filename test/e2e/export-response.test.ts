import t from 'tap';
import { ApiClient } from '../helpers/client.ts';
import { startTestService } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';
import { until } from '../helpers/until.ts';

// High findings about Services revoke the key they used; 15 calls in a minute is High (3x 5).
const svc = await startTestService({
  SVC_AUTH_KIND: 'hmac',
  SVC_AUTH_HMAC_SECRET: TEST_SECRET,
  SVC_JOURNAL_KIND: 'rdb-embedded',
  SVC_AUTO_RESPONSE_REVOKE_KINDS: 'Agent,Service',
  SVC_RATE_SPIKE_THRESHOLD: '5',
});
t.teardown(() => svc.stop());
const as = async (claims: Record<string, unknown>) =>
  new ApiClient(svc.url, { Authorization: `Bearer ${await mintToken(claims, { ttlSeconds: 3600 })}` });
const alice = await as({ sub: 'alice' });

t.test(
  'export is a use of the material: a Service that trips a detector by ' +
    'exporting gets the key disabled; one only reading it does not',
  async (t) => {
    const exported = await alice.key({ algorithm: 'AES', exportable: true });
    const read = await alice.key({ algorithm: 'AES', exportable: true });
    const exporter = await as({ sub: 'svc-exporter', svc_kind: 'service' });
    const reader = await as({ sub: 'svc-reader', svc_kind: 'service' });
    for (let i = 0; i < 15; i++) {
      t.equal((await reader.get(`/v1/keys/${read}`)).status, 200);
      const r = await exporter.post(`/v1/keys/${exported}/export`, {});
      if (r.status !== 200) break; // a disabled key refuses export: the loop ends at the pause
    }
    await until(
      async () => (await alice.get(`/v1/keys/${exported}`)).body.enabled === false,
      'the exported key to be disabled',
    );
    const rows = (await alice.get(`/v1/audit?key=key:${exported}&limit=100`)).body.records;
    t.match(
      rows.find((r: any) => r.context['auto.response.rule'] === 'RateSpike:High:Disable'),
      { principal: { subject: 'svc-system' }, context: { 'auto.response.actor': 'svc-exporter' } },
    );
    const readerRows = (await alice.get('/v1/audit?actor=svc-system&limit=100')).body.records.filter(
      (r: any) => r.context['auto.response.actor'] === 'svc-reader',
    );
    t.ok(readerRows.length > 0, 'the reader tripped the detector as well');
    t.notOk(
      readerRows.some((r: any) => r.operation === 'Disable'),
      "but reading a key's metadata disables nothing",
    );
    t.equal((await alice.get(`/v1/keys/${read}`)).body.state, 'Active', 'the read key stays Active');
  },
);
