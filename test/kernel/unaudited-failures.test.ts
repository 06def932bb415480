import { Type } from '@sinclair/typebox';
import t from 'tap';
import { SvcError } from '../../kernel/errors.ts';
import { createStderrLogger } from '../../kernel/logger.ts';
import { SYSTEM_PRINCIPAL, type AuditRecord, type Principal } from '../../kernel/model/index.ts';
import { KmsMetrics } from '../../kernel/observability/metrics.ts';
import { defineOperation } from '../../kernel/operations/operation.ts';
import { OperationPipeline } from '../../kernel/operations/pipeline.ts';
import { systemClock } from '../../kernel/ports/clock.ts';
import { DevPolicy } from '../../plugins/policy/dev/dev-policy.ts';

class Superseded extends SvcError {
  constructor() {
    super('IllegalOperation', 'another node did it first');
  }
}

/** An operation whose handler fails with Superseded, or commits a change and then fails with it. */
function pipeline(commitFirst = false) {
  const records: AuditRecord[] = [];
  const op = defineOperation({
    id: 'DestroyScheduledKey',
    operation: 'Destroy',
    summary: 'x',
    group: 'Test',
    input: Type.Object({}),
    output: Type.Object({}),
    resource: () => 'key:x',
    handle: async (_input, call) => {
      if (commitFirst) call.journaled(call.successRecord({}));
      throw new Superseded();
    },
  });
  return {
    records,
    pipeline: new OperationPipeline([op], {
      policy: new DevPolicy(),
      audit: { record: async (r) => void records.push(r) },
      metrics: new KmsMetrics(),
      logger: createStderrLogger('error'),
      clock: systemClock,
    }),
  };
}
const caller = (principal: Principal) => ({
  principal,
  requestId: 'r',
  door: 'internal',
  unaudited: (err: unknown) => err instanceof Superseded,
});

t.test('a failure svc-system names as unaudited writes no record, and is still thrown', async (t) => {
  const { pipeline: p, records } = pipeline();
  await t.rejects(p.run('DestroyScheduledKey', {}, caller(SYSTEM_PRINCIPAL)), { message: 'another node did it first' });
  t.same(records, []);
});

t.test('any other principal is audited whatever it asks', async (t) => {
  const { pipeline: p, records } = pipeline();
  await t.rejects(p.run('DestroyScheduledKey', {}, caller({ kind: 'Human', subject: 'mallory', groups: [] })), {
    message: 'another node did it first',
  });
  t.match(records, [{ principal: { subject: 'mallory' }, outcome: 'IllegalOperation' }]);
});

t.test('a call whose change committed keeps its record', async (t) => {
  const { pipeline: p, records } = pipeline(true);
  await t.rejects(p.run('DestroyScheduledKey', {}, caller(SYSTEM_PRINCIPAL)), { message: 'another node did it first' });
  t.equal(records.length, 1);
});
