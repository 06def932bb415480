import { Type } from '@sinclair/typebox';
// A published plugin would import these from the svc-kms package; the example sits in the repository.
import { defineSettings } from '../../kernel/index.ts';

/**
 * The detector's settings, in the section `offHours`: each setting's variable is `SVC_` and its key in
 * upper snake case (`SVC_OFF_HOURS_START_HOUR`, `SVC_OFF_HOURS_END_HOUR`), so neither names an `env`.
 */
export const offHoursSettings = defineSettings(
  Type.Object({
    offHours: Type.Object({
      startHour: Type.Integer({ minimum: 0, description: 'First business hour (UTC).', default: 7 }),
      endHour: Type.Integer({ minimum: 0, description: 'End of business hours (UTC, exclusive).', default: 19 }),
    }),
  }),
);
