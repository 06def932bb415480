import t from 'tap';
import {
  canonicalEventJson,
  canonicalJson,
  chainHash,
  GENESIS_HASH,
  toAuditEvent,
} from '../../kernel/audit/canonical-event.ts';

const event = (context: Record<string, string>, subject = 'alice') => ({
  ...toAuditEvent(
    {
      id: '0b7c3e1e-58a4-4c39-9a0e-1d1f4b5a6c7d',
      occurredAt: '2026-11-23T10:00:00.000Z',
      principal: { subject, kind: 'Agent' },
      operation: 'Sign',
      resource: 'k1',
      outcome: 'Success',
      context,
      correlationId: 'req-1',
    },
    'kms-1',
  ),
  prevHash: GENESIS_HASH,
});

t.test('the hand-written serializer gives exactly the canonical JSON (sorted keys at every depth)', async (t) => {
  for (const e of [
    event({}),
    event({ z: '1', a: '2', 'source.ip': '10.0.0.1', riskScore: '40' }),
    event({ 'quote"and\\\\slash': 'line\nbreak \u2028 \u0000', ü: 'ñ 😀' }, 'agent-"x"'),
  ]) {
    t.equal(canonicalEventJson(e), canonicalJson(e));
    t.same(JSON.parse(canonicalEventJson(e)), e, 'and it is the event');
  }
});

t.test('the hash covers every field: changing any one changes it', async (t) => {
  const base = event({ riskScore: '10' });
  const h = chainHash(base);
  t.match(h, /^[0-9a-f]{64}$/);
  const variants = [
    { ...base, outcome: 'PermissionDenied' },
    { ...base, node: 'kms-2' },
    { ...base, prevHash: 'f'.repeat(64) },
    { ...base, context: { riskScore: '11' } },
    { ...base, principal: { subject: 'alice', kind: 'Human' as const } },
    { ...base, occurredAt: '2026-11-23T10:00:00.001Z' },
    { ...base, correlationId: 'req-2' },
  ];
  for (const v of variants) t.not(chainHash(v), h);
  t.equal(chainHash({ ...base, hash: 'a'.repeat(64) }), h, 'the hash field itself is not hashed');
});
