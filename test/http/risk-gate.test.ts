import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startTestService, tempDir } from '../helpers/service.ts';

const dir = tempDir();
writeFileSync(path.join(dir, 'svc.yaml'), `plugins:\n  - ${path.resolve('test/fixtures/step-up-risk.ts')}\n`);
// The fixture replaces the built-in scorer, which is switched off.
const svc = await startTestService({ SVC_CONFIG_FILE: path.join(dir, 'svc.yaml'), SVC_RISK_ENABLED: 'false' }, { dir });
t.teardown(() => svc.stop());
const api = svc.client();

t.test(
  'StepUp is 401 StepUpRequired with the reason; Deny is 403 with the "risk: " prefix; both audited',
  async (t) => {
    const id = await api.key({ algorithm: 'AES' });
    const stepUp = await api.post(`/v1/keys/${id}/rotate`, {});
    t.equal(stepUp.status, 401);
    t.same(stepUp.body, {
      error: 'StepUpRequired',
      message: 'step-up authentication required: destructive operation from a new address',
    });
    const deny = await api.post(`/v1/keys/${id}/compromise`, { reason: 'x' });
    t.equal(deny.status, 403);
    t.same(deny.body, { error: 'PermissionDenied', message: 'risk: score 0.90 over the deny threshold' });
    const rows = await api.auditOf(id);
    t.match(rows.find((r) => r.operation === 'Encrypt' || r.operation === 'Activate').context, {
      'risk.score': '0.10',
      'outcome.decision': 'Allow',
    });
    t.match(
      rows.find((r) => r.operation === 'Rotate'),
      {
        outcome: 'StepUpRequired',
        context: {
          'outcome.decision': 'StepUp',
          'outcome.decision.reason': 'destructive operation from a new address',
          'risk.factors': 'DestructiveOp:0.10',
        },
      },
    );
    t.match(
      rows.find((r) => r.operation === 'Compromise'),
      { outcome: 'PermissionDenied', context: { 'outcome.decision': 'Deny', 'risk.score': '0.90' } },
    );
    t.equal((await api.get(`/v1/keys/${id}`)).body.currentVersion, 1, 'nothing happened');
  },
);
