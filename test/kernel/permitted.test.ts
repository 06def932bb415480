import { Type } from '@sinclair/typebox';
import t from 'tap';
import { createStderrLogger } from '../../kernel/logger.ts';
import { SYSTEM_PRINCIPAL, type AuditRecord, type Principal } from '../../kernel/model/index.ts';
import { KmsMetrics } from '../../kernel/observability/metrics.ts';
import { defineOperation, type AnyOperation } from '../../kernel/operations/operation.ts';
import { OperationPipeline } from '../../kernel/operations/pipeline.ts';
import { systemClock } from '../../kernel/ports/clock.ts';
import type { Policy } from '../../kernel/ports/policy.ts';
import { DevPolicy } from '../../plugins/policy/dev/dev-policy.ts';
import { RoleBasedPolicy } from '../../plugins/policy/role-based/role-policy.ts';

const facts = async () => ({ id: '00000000-0000-4000-8000-000000000000', name: 'k', owner: 'alice' });
const op = (id: string, operation: AnyOperation['operation'], extra: Partial<AnyOperation> = {}): AnyOperation =>
  defineOperation({
    id,
    operation,
    summary: id,
    group: 'Test',
    input: Type.Object({}),
    output: Type.Object({}),
    resource: () => 'key:x',
    handle: async () => ({ result: {} }),
    ...extra,
  });

const operations = [
  op('Sign', 'Sign', { resourceFacts: facts }),
  op('Encrypt', 'Encrypt', { resourceFacts: facts }),
  op('DestroyKey', 'Destroy', { resourceFacts: facts }),
  op('QueryAudit', 'Query', { attributes: { humanOnly: true }, resource: () => 'audit' }),
  op('ListAgents', 'Query', { attributes: { humanOnly: true, authorizesItself: true }, resource: () => 'agent:self' }),
  op('IssueAgentToken', 'Create', { attributes: { humanOnly: true }, resource: () => 'agent:new' }),
];

function pipelineWith(policy: Policy) {
  const records: AuditRecord[] = [];
  const metrics = new KmsMetrics();
  const pipeline = new OperationPipeline(operations, {
    policy,
    audit: { record: async (r) => void records.push(r) },
    metrics,
    logger: createStderrLogger('error'),
    clock: systemClock,
  });
  return { pipeline, records, metrics };
}

const ids = (defs: AnyOperation[]) => defs.map((d) => d.id).sort();
const alice: Principal = { kind: 'Human', subject: 'alice', groups: ['signers'] };
const bob: Principal = { kind: 'Human', subject: 'bob', groups: ['auditors'] };
const svc: Principal = { kind: 'Service', subject: 'billing', groups: [] };
const agentOf = (parent: string, parentGroups: string[], allowed: AnyOperation['operation'][]): Principal => ({
  kind: 'Agent',
  subject: 'agent-1',
  parent,
  parentGroups,
  purpose: 'test',
  allowedOperations: allowed,
});

t.test('dev policy: humans see everything, services all but human-only operations, agents their scopes', async (t) => {
  const { pipeline, records } = pipelineWith(new DevPolicy());
  t.same(ids(pipeline.permitted(alice)), [
    'DestroyKey',
    'Encrypt',
    'IssueAgentToken',
    'ListAgents',
    'QueryAudit',
    'Sign',
  ]);
  t.same(ids(pipeline.permitted(svc)), ['DestroyKey', 'Encrypt', 'Sign']);
  t.same(
    ids(pipeline.permitted(agentOf('alice', [], ['Sign', 'Query']))),
    ['Sign'],
    'an agent never sees human-only operations, even when scoped for them',
  );
  t.same(ids(pipeline.permitted(SYSTEM_PRINCIPAL)), ids(operations));
  t.equal(records.length, 0, 'listing writes no audit record');
});

t.test('role-based policy: operations some binding grants; agents bounded by their parent', async (t) => {
  const policy = new RoleBasedPolicy(
    {
      signers: { operations: ['Sign', 'Destroy'], keys: ['owner:self'] },
      auditors: ['Query'],
      agentAdmins: { operations: ['Query'], agents: ['*'] },
      creators: { operations: ['Create'], keys: ['name:team-*'] },
    },
    { billing: ['Encrypt'] },
  );
  const { pipeline, records } = pipelineWith(policy);
  t.same(
    ids(pipeline.permitted(alice)),
    ['DestroyKey', 'ListAgents', 'Sign'],
    'key-scoped grants count for key operations, not for the audit trail',
  );
  t.same(ids(pipeline.permitted(bob)), ['ListAgents', 'QueryAudit']);
  t.same(
    ids(pipeline.permitted({ kind: 'Human', subject: 'carol', groups: ['agentAdmins'] })),
    ['ListAgents'],
    'a binding on agents grants no key operation and not the audit trail',
  );
  t.same(ids(pipeline.permitted(svc)), ['Encrypt']);
  const dave: Principal = { kind: 'Human', subject: 'dave', groups: ['creators'] };
  t.same(
    ids(pipeline.permitted(dave)),
    ['IssueAgentToken', 'ListAgents'],
    'a key-scoped Create lets its holder issue agents (bounded per key at use)',
  );
  t.same(
    ids(pipeline.permitted(agentOf('alice', ['signers'], ['Sign', 'Encrypt']))),
    ['Sign'],
    "Encrypt is in the agent's scopes but its parent may not",
  );
  t.same(ids(pipeline.permitted(agentOf('bob', ['auditors'], ['Sign']))), [], 'its parent may not sign');
  t.equal(records.length, 0);

  // What is listed is what succeeds when the key is the caller's own.
  for (const p of [alice, bob, svc, dave, agentOf('alice', ['signers'], ['Sign', 'Encrypt'])]) {
    const listed = new Set(pipeline.permitted(p).map((d) => d.id));
    for (const def of operations) {
      if (def.attributes?.authorizesItself) continue;
      const ok = await pipeline.run(def.id, {}, { principal: p, requestId: 'r', door: 'test' }).then(
        () => true,
        () => false,
      );
      t.equal(ok, listed.has(def.id), `${p.subject} ${def.id}: listed ${listed.has(def.id)}, succeeded ${ok}`);
    }
  }
});

t.test("every record names its door; the door's context is added but never forges the kernel's keys", async (t) => {
  const { pipeline, records } = pipelineWith(new DevPolicy());
  await pipeline.run(
    'Sign',
    {},
    {
      principal: alice,
      requestId: 'r1',
      door: 'mcp',
      sourceIp: '10.0.0.1',
      context: {
        'agent.model': 'm-1',
        door: 'http',
        'source.ip': '1.2.3.4',
        'risk.score': '0.00',
        'outcome.decision': 'Allow',
      },
    },
  );
  t.same(records[0]!.context, { 'agent.model': 'm-1', door: 'mcp', 'source.ip': '10.0.0.1' });
  const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`x.${i}`, 'v']));
  await pipeline.run('Sign', {}, { principal: alice, requestId: 'r2', door: 'internal', context: many });
  t.equal(Object.keys(records[1]!.context).length, 9, 'at most 8 entries from the door, plus door');
  t.equal(records[1]!.context.door, 'internal');
});

t.test(
  'agentsRefused: an agent neither sees nor runs the operation, whatever its scopes; a Service does both',
  async (t) => {
    const refusing = [
      op('ExportKey', 'Get', { attributes: { agentsRefused: 'it hands out raw key material' }, resourceFacts: facts }),
      op('GetKey', 'Get', { resourceFacts: facts }),
    ];
    const records: AuditRecord[] = [];
    const pipeline = new OperationPipeline(refusing, {
      policy: new DevPolicy(),
      audit: { record: async (r) => void records.push(r) },
      metrics: new KmsMetrics(),
      logger: createStderrLogger('error'),
      clock: systemClock,
    });
    const agent = agentOf('alice', [], ['Get']);
    t.same(ids(pipeline.permitted(agent)), ['GetKey']);
    t.same(ids(pipeline.permitted(svc)), ['ExportKey', 'GetKey']);
    await t.rejects(pipeline.run('ExportKey', {}, { principal: agent, requestId: 'r1', door: 'http' }), {
      code: 'PermissionDenied',
      message: /refused to agents whatever their scopes/,
    });
    t.match(
      records.at(-1),
      { operation: 'Get', outcome: 'PermissionDenied', principal: { kind: 'Agent' } },
      'the refusal is audited',
    );
    t.same(await pipeline.run('ExportKey', {}, { principal: svc, requestId: 'r2', door: 'http' }), {});
  },
);
