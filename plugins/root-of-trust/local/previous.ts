import { definePlugin, KERNEL_API_VERSION, previousKeksPort } from '../../../kernel/index.ts';
import { commaList } from '../support/comma-list.ts';
import { unprobed } from '../support/unprobed.ts';
import { badPreviousKeks, localKekSettings } from './config.ts';
import { LocalRootOfTrust } from './local-root-of-trust.ts';

/**
 * The local KEKs listed in crypto.previousKeks, while crypto.kind is another kind: they still unwrap the
 * keys wrapped under them (and 0.1 material) until `rewrap` has moved every key to the current KEK.
 */
export default definePlugin({
  id: 'root-of-trust-local-previous',
  apiVersion: KERNEL_API_VERSION,
  provides: previousKeksPort,
  description: 'previous local KEKs, unwrapping only while keys move off the local root of trust',
  settings: localKekSettings,
  instances: ({ crypto }, deployment) => {
    const previous = commaList(crypto.previousKeks);
    // The local root of trust unwraps with its own previous KEKs when it is the chosen kind.
    if (deployment.kinds.crypto === 'in-memory' || previous.length === 0) return [];
    return [{ name: 'local', config: previous }];
  },
  preflight: (previous) => badPreviousKeks(previous),
  create: ({ config }) =>
    unprobed(new LocalRootOfTrust({ kind: 'configured', kekBase64: config[0]! }, config.slice(1))),
});
