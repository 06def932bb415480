// A published plugin would import these from the svc-kms package; the example sits in the repository.
import { definePlugin, detectorPort, KERNEL_API_VERSION } from '../../kernel/index.ts';
import { OffHoursDestructiveDetector } from './off-hours-detector.ts';
import { offHoursSettings } from './config.ts';

export default definePlugin({
  id: 'example-off-hours-destructive',
  apiVersion: KERNEL_API_VERSION,
  provides: detectorPort,
  description: 'destructive operations outside business hours (example third-party detector)',
  settings: offHoursSettings,
  // Receives this plugin's own settings, validated, with their defaults and typed from the declaration;
  // what it returns is the `config` that `create` receives.
  configure: ({ offHours }) => ({ startHour: offHours.startHour, endHour: offHours.endHour }),
  create: ({ config }) => new OffHoursDestructiveDetector(config.startHour, config.endHour),
});
