import { defineConfig } from '../../kernel/index.ts';

export const offHoursConfig = defineConfig({
  offHours: {
    startHour: { doc: 'First business hour (UTC).', format: 'nat', default: 7, env: 'SVC_OFF_HOURS_START_HOUR' },
    endHour: { doc: 'End of business hours (UTC, exclusive).', format: 'nat', default: 19, env: 'SVC_OFF_HOURS_END_HOUR' },
  },
});
