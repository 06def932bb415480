// A published plugin would import these from the svc-kms package; the example sits in the repository.
import { definePlugin, KERNEL_API_VERSION } from '../../kernel/define-plugin.ts';
import { detectorPort } from '../../kernel/ports/detector.ts';
import { OffHoursDestructiveDetector } from './off-hours-detector.ts';

export default definePlugin({
  id: 'example-off-hours-destructive',
  apiVersion: KERNEL_API_VERSION,
  provides: detectorPort,
  description: 'destructive operations outside business hours (example third-party detector)',
  config: {
    offHours: {
      startHour: { doc: 'First business hour (UTC).', format: 'nat', default: 7, env: 'SVC_OFF_HOURS_START_HOUR' },
      endHour: { doc: 'End of business hours (UTC, exclusive).', format: 'nat', default: 19, env: 'SVC_OFF_HOURS_END_HOUR' },
    },
  },
  configSlice: (all: Record<string, any>) => ({ startHour: all.offHours.startHour as number, endHour: all.offHours.endHour as number }),
  create: ({ config }) => new OffHoursDestructiveDetector(config.startHour, config.endHour),
});
