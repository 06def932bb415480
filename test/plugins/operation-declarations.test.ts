import t from 'tap';
import { startTestService } from '../helpers/service.ts';

const svc = await startTestService();
t.teardown(() => svc.stop());
const operations = svc.kernel.pipeline.list();

t.test('every built-in operation describes itself for a caller choosing it', async (t) => {
  for (const def of operations) {
    t.ok((def.description ?? '').length >= 80, `${def.id} has a description`);
    t.notMatch(
      def.description ?? '',
      /\bSPEC\b|DECISIONS|svc-system|password/,
      `${def.id}: no document references or deployment details`,
    );
  }
});

t.test('read-only and destructive attributes', async (t) => {
  const ids = (attr: 'readOnly' | 'destructive') =>
    operations
      .filter((d) => d.attributes?.[attr])
      .map((d) => d.id)
      .sort();
  t.same(ids('readOnly'), [
    'AdvisorExplain',
    'AdvisorScan',
    'GenerateRandom',
    'GetKey',
    'GetKeyJwks',
    'GetPolicy',
    'GetPublicKey',
    'ListAccessKeys',
    'ListAgents',
    'ListAliases',
    'LocateKeys',
    'QueryAudit',
    'Verify',
    'VerifyAudit',
  ]);
  t.same(ids('destructive'), [
    'CompromiseKey',
    'DeleteAccessKey',
    'DestroyKey',
    'DestroyScheduledKey',
    'RevokeAgent',
    'RevokeKey',
    'RevokeToken',
    'RewrapKeys',
    'RotateKey',
    'TrimKey',
  ]);
  t.same(
    operations.filter((d) => d.attributes?.readOnly && d.attributes?.destructive).map((d) => d.id),
    [],
    'nothing is both',
  );
});
