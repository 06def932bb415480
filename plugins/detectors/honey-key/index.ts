import { definePlugin, detectorPort, KERNEL_API_VERSION } from '../../../kernel/index.ts';
import { honeyKeySettings } from './config.ts';
import { HoneyKeyDetector } from './honey-key.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export default definePlugin({
  id: 'detector-honey-key',
  apiVersion: KERNEL_API_VERSION,
  provides: detectorPort,
  kind: 'HoneyKey',
  description: 'an agent touching a key listed in SVC_HONEY_KEYS (High, first touch)',
  settings: honeyKeySettings,
  configure: ({ honeyKeys }) => ({
    keys: honeyKeys
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean),
  }),
  preflight: ({ keys }) => {
    const bad = keys.filter((k) => !UUID.test(k));
    return bad.length
      ? [
          {
            name: 'honeyKeys',
            status: 'fail',
            message: `SVC_HONEY_KEYS holds malformed key ids: ${bad.join(', ')}`,
            advice: 'list key ids (UUIDs) separated by commas',
          },
        ]
      : [{ name: 'honeyKeys', status: 'ok', message: `${keys.length} honey key(s)` }];
  },
  create: ({ config }) => new HoneyKeyDetector(new Set(config.keys.map((k) => k.toLowerCase()))),
});
