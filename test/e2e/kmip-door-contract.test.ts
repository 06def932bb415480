import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { DOOR_CONTRACT_PLUGINS, doorContract } from '../../contracts/door.ts';
import type { KmipAdapter } from '../../plugins/doors/kmip/operations/adapter.ts';
import { startKmipService } from '../helpers/kmip.ts';
import { HOLD_OPERATION, holdAdapter, kmipDoorClient } from '../helpers/kmip-door-client.ts';
import { tempDir } from '../helpers/service.ts';

doorContract(t, 'kmip', async () => {
  const config = path.join(tempDir(), 'svc.yaml');
  writeFileSync(config, `plugins:\n${DOOR_CONTRACT_PLUGINS.map((p) => `  - ${p}\n`).join('')}`);
  const kmip = await startKmipService({ SVC_CONFIG_FILE: config });
  const door = kmip.svc.kernel.doors.find((d) => d.name === 'kmip');
  // The suite's held operation, reachable over KMIP only as a vendor operation of the door's table (see
  // HOLD_OPERATION).
  (door as unknown as { operations: Map<number, KmipAdapter> }).operations.set(HOLD_OPERATION, holdAdapter);
  return { restUrl: kmip.svc.url, doors: kmip.svc.kernel.doors, door: kmipDoorClient(kmip), stop: () => kmip.stop() };
});
