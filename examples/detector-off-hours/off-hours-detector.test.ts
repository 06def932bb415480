import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { detectorContract } from '../../contracts/detector.ts';
import { ManualClock, startTestService, tempDir } from '../../test/helpers/service.ts';
import { OffHoursDestructiveDetector } from './off-hours-detector.ts';

t.test('passes the detector contract', async (t) => {
  detectorContract(t, () => new OffHoursDestructiveDetector(7, 19));
});

t.test('loaded from plugins:, it alerts on a rotation at 03:00 UTC and not at noon', async (t) => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'svc.yaml'), `plugins:\n  - ${path.resolve('examples/detector-off-hours/index.ts')}\n`);
  const clock = new ManualClock(new Date('2026-01-05T12:00:00.000Z'));
  const svc = await startTestService({ SVC_CONFIG_FILE: path.join(dir, 'svc.yaml') }, { dir, clock });
  t.teardown(() => svc.stop());
  t.match(svc.logs.join('\n'), /detector\s+example-off-hours-destructive/);
  const api = svc.client('night-owl');
  const id = await api.key({ algorithm: 'AES' });
  await api.post(`/v1/keys/${id}/rotate`, {});
  const alerts = async () =>
    (await api.get(`/v1/audit?key=key:${id}`)).body.records.filter((r: any) =>
      r.context['auto.response.rule']?.startsWith('OffHoursDestructive'),
    );
  t.same(await alerts(), [], 'noon is business hours');
  clock.advance(15 * 3600_000); // 03:00 UTC the next day
  await api.post(`/v1/keys/${id}/rotate`, {});
  for (let i = 0; i < 200 && (await alerts()).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const [row] = await alerts();
  t.match(row, {
    principal: { subject: 'svc-system' },
    context: { 'auto.response.rule': 'OffHoursDestructive:Medium:Alert', 'auto.response.actor': 'night-owl' },
    outcome: /action=Alert\) Success/,
  });
  t.equal((await api.get(`/v1/keys/${id}`)).body.state, 'Active', 'a Human gets an Alert, not a revoked key');
});
