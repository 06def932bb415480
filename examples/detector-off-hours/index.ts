// A published plugin would import these from the svc-kms package; the example sits in the repository.
import { type ConfigValues, definePlugin, detectorPort, KERNEL_API_VERSION } from '../../kernel/index.ts';
import { OffHoursDestructiveDetector } from './off-hours-detector.ts';
import { offHoursConfig } from './config.ts';

export default definePlugin({
  id: 'example-off-hours-destructive',
  apiVersion: KERNEL_API_VERSION,
  provides: detectorPort,
  description: 'destructive operations outside business hours (example third-party detector)',
  config: offHoursConfig,
  configSlice: (all: ConfigValues<typeof offHoursConfig>) => ({ startHour: all.offHours.startHour, endHour: all.offHours.endHour }),
  create: ({ config }) => new OffHoursDestructiveDetector(config.startHour, config.endHour),
});
