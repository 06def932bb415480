import { defineConfig } from '../../kernel/index.ts';

export const autoResponseConfig = defineConfig({
  autoResponse: {
    enabled: { doc: 'Act on detector findings (false: detectors still run, nothing is done).', format: Boolean, default: true, env: 'SVC_AUTO_RESPONSE_ENABLED' },
    cooldownSeconds: { doc: 'At most one action per (actor, action) in this time.', format: 'nat', default: 60, env: 'SVC_AUTO_RESPONSE_COOLDOWN_SECONDS' },
    revokeKinds: { doc: 'Principal kinds whose High findings revoke the key (others get Alert).', format: String, default: 'Agent', env: 'SVC_AUTO_RESPONSE_REVOKE_KINDS' },
    rules: { doc: 'Rule lines `DETECTOR:SEVERITY -> ACTION [for KIND,...]`, first match wins; empty means the shipped rules.', format: Array, default: [] },
  },
});
