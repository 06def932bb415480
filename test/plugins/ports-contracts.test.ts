import path from 'node:path';
import t from 'tap';
import { authenticatorContract } from '../../contracts/authenticator.ts';
import { policyContract, policyKeyScopeContract, policyListingContract } from '../../contracts/policy.ts';
import { primaryAuditSinkContract } from '../../contracts/audit-sink.ts';
import { revocationContract } from '../../contracts/revocation.ts';
import { riskContract } from '../../contracts/risk.ts';
import { rootOfTrustContract } from '../../contracts/root-of-trust.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { OPERATIONS } from '../../kernel/model/operation.ts';
import { systemClock } from '../../kernel/ports/clock.ts';
import type { Principal } from '../../kernel/index.ts';
import { KnexAuditSink } from '../../plugins/audit-sink/knex/knex-audit-sink.ts';
import { StdoutAuditSink } from '../../plugins/audit-sink/stdout/stdout-sink.ts';
import { DevAuthenticator } from '../../plugins/auth/dev/dev-authenticator.ts';
import { HmacAuthenticator } from '../../plugins/auth/hmac/hmac-authenticator.ts';
import { MemoryAgentRegistry } from '../../plugins/journal/memory/memory-agent-registry.ts';
import { BaselineDetector } from '../../plugins/detectors/baseline/baseline-detector.ts';
import { scope, sourceIp } from '../../plugins/detectors/baseline/dimensions.ts';
import { DevPolicy } from '../../plugins/policy/dev/dev-policy.ts';
import { RoleBasedPolicy } from '../../plugins/policy/role-based/role-policy.ts';
import { MemoryRevocationList } from '../../plugins/revocation/memory/memory-revocation.ts';
import { RiskScorer } from '../../plugins/risk/scoring/risk-scorer.ts';
import { LocalRootOfTrust } from '../../plugins/root-of-trust/local/local-root-of-trust.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET, unsignedToken } from '../helpers/tokens.ts';
import { ActorStateBudget, DEFAULT_STATE_BYTES } from '../../kernel/detection/state-budget.ts';

const quiet = createStderrLogger('error', () => {});
const KEK = Buffer.alloc(32, 7).toString('base64');
const started = async <T extends { start(): Promise<void> }>(x: T) => (await x.start(), x);

t.test('root of trust: local (configured KEK)', async (t) => {
  const open = () => started(new LocalRootOfTrust({ kind: 'configured', kekBase64: KEK }));
  rootOfTrustContract(t, open, open);
});

t.test('root of trust: local (KEK file beside the journal)', async (t) => {
  const file = path.join(tempDir(), 'kek.key');
  const open = () => started(new LocalRootOfTrust({ kind: 'file', file }));
  rootOfTrustContract(t, open, open);
});

t.test('authenticator: dev', async (t) => {
  authenticatorContract(t, async () => ({
    authenticator: new DevAuthenticator(),
    valid: async (subject) => ({ 'X-Svc-User': subject }),
    invalid: async () => [
      ['empty header', { 'X-Svc-User': '' }],
      ['control characters', { 'X-Svc-User': 'eve\u0007\u001b[2J' }],
      ['too long', { 'X-Svc-User': 'e'.repeat(300) }],
    ],
  }));
});

t.test('authenticator: hmac', async (t) => {
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  authenticatorContract(t, async () => ({
    authenticator: new HmacAuthenticator(TEST_SECRET, new MemoryRevocationList(systemClock), new MemoryAgentRegistry()),
    valid: async (subject) => bearer(await mintToken({ sub: subject })),
    invalid: async () => [
      [
        'signed with another secret',
        bearer(await mintToken({ sub: 'alice' }, { secret: 'another-secret-that-is-long-enough-0123456789' })),
      ],
      [
        'expired',
        bearer(await mintToken({ sub: 'alice' }, { iat: Math.floor(Date.now() / 1000) - 7200, ttlSeconds: 60 })),
      ],
      ['alg none', bearer(unsignedToken({ sub: 'alice' }))],
      ['not a token', bearer('not.a.token')],
      ['no sub', bearer(await mintToken({}))],
      [
        'a well-signed agent token the agent registry never issued',
        bearer(
          await mintToken({
            sub: 'agent-minted',
            svc_kind: 'agent',
            iss: 'svc-kms',
            aud: 'svc-kms',
            svc_parent: 'alice',
            svc_ops: ['Sign'],
          }),
        ),
      ],
    ],
  }));
});

t.test('revocation list: in-memory', async (t) => {
  revocationContract(t, async () => new MemoryRevocationList(systemClock));
});

t.test('policy: dev', async (t) => {
  policyContract(t, () => ({ policy: new DevPolicy(), admin: { kind: 'Human', subject: 'anyone', groups: [] } }));
  policyListingContract(t, () => ({
    policy: new DevPolicy(),
    admin: { kind: 'Human', subject: 'anyone', groups: [] },
  }));
  policyKeyScopeContract(t, () => ({ policy: new DevPolicy(), principals: SCOPE_PRINCIPALS, keys: SCOPE_KEYS }));
});

const SCOPE_KEYS = [
  { id: '00000000-0000-4000-8000-00000000000a', name: 'payments-eu', owner: 'bob' },
  { id: '00000000-0000-4000-8000-00000000000b', name: 'payments-us', owner: 'carol' },
  { id: '00000000-0000-4000-8000-00000000000c', name: 'logs', owner: 'carol', tenant: 't1' },
  { id: '00000000-0000-4000-8000-00000000000d', name: 'logs', owner: 'svc-a', tenant: 't2' },
  { id: '00000000-0000-4000-8000-00000000000e', name: 'PAYMENTS-x', owner: 'dave' },
];
const SCOPE_PRINCIPALS: Principal[] = [
  { kind: 'Human', subject: 'bob', groups: ['team'] },
  { kind: 'Human', subject: 'carol', groups: ['team', 'payments'] },
  { kind: 'Human', subject: 'erin', groups: ['payments'] },
  { kind: 'Human', subject: 'root', groups: ['admins'] },
  { kind: 'Human', subject: 'nobody', groups: [] },
  { kind: 'Service', subject: 'svc-b', tenant: 't1', groups: ['team'] },
  { kind: 'Human', subject: 'frank', groups: [] },
  {
    kind: 'Agent',
    subject: 'agent-1',
    parent: 'bob',
    parentGroups: ['team'],
    purpose: 'x',
    allowedOperations: ['Get', 'Locate'],
  },
  {
    kind: 'Agent',
    subject: 'agent-2',
    parent: 'root',
    parentGroups: ['admins'],
    purpose: 'x',
    allowedOperations: ['Sign'],
  },
  {
    kind: 'Agent',
    subject: 'agent-3',
    parent: 'erin',
    parentGroups: ['payments'],
    purpose: 'x',
    allowedOperations: ['Get', 'Sign', 'Destroy'],
  },
];

t.test('policy: role-based', async (t) => {
  const all = [...OPERATIONS];
  policyContract(t, () => ({
    policy: new RoleBasedPolicy({ admins: all }, { viewer: ['Get'] }),
    admin: { kind: 'Human', subject: 'root', groups: ['admins'] },
  }));
  policyListingContract(t, () => ({
    policy: new RoleBasedPolicy({ admins: all }, { viewer: ['Get'] }),
    admin: { kind: 'Human', subject: 'root', groups: ['admins'] },
  }));
  policyKeyScopeContract(t, () => ({
    policy: new RoleBasedPolicy(
      {
        admins: all,
        team: { operations: ['Get', 'Sign', 'Locate'], keys: ['owner:self'] },
        payments: {
          operations: ['Get', 'Destroy'],
          keys: ['name:payments-*', 'id:00000000-0000-4000-8000-00000000000D'],
        },
      },
      { frank: { operations: ['Sign'], agents: ['*'] } },
    ),
    principals: SCOPE_PRINCIPALS,
    keys: SCOPE_KEYS,
  }));
});

t.test('risk: scoring', async (t) => {
  riskContract(t, () => {
    const weights = {
      ScopeBaseline: 0.2,
      OpHistogramBaseline: 0.1,
      TimeOfDayBaseline: 0.2,
      SourceIpBaseline: 0.3,
      RateSpike: 0.3,
      AgentPrincipal: 0.2,
      CredentialAge: 0.1,
      BroadScope: 0.1,
      DestructiveOp: 0.1,
    };
    const budget = new ActorStateBudget(DEFAULT_STATE_BYTES);
    return new RiskScorer(
      [new BaselineDetector(scope, budget), new BaselineDetector(sourceIp, budget)],
      { weights, deny: 0.85, stepUp: 0.6, destructiveDelta: 0.15, gateKinds: ['Agent'] },
      systemClock,
    );
  });
});

t.test('primary audit sink: stdout', async (t) => {
  primaryAuditSinkContract(t, {
    open: async () => new StdoutAuditSink(() => {}),
    openFailing: async () =>
      new StdoutAuditSink(() => {
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      }),
  });
});

t.test('primary audit sink: SQLite', async (t) => {
  let n = 0;
  const open = () =>
    started(new KnexAuditSink(sqliteKnexSettings(path.join(tempDir(), `audit-${++n}.db`)), 0, systemClock, quiet));
  primaryAuditSinkContract(t, {
    open,
    // A store that is gone: the pool is closed under the sink.
    openFailing: async () => {
      const sink = await open();
      await sink.stop();
      return sink;
    },
  });
});
