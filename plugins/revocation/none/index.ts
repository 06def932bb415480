import {
  definePlugin,
  KERNEL_API_VERSION,
  type RevocationList,
  revocationPort,
  SvcError,
} from '../../../kernel/index.ts';

/** No revocation list: tokens end only at expiry, and manual revocation says so. */
class NoRevocation implements RevocationList {
  async revoke(): Promise<void> {
    throw new SvcError('FeatureNotSupported', 'revocation.kind is none: tokens end only at their expiry');
  }

  async isRevoked(): Promise<boolean> {
    return false;
  }
}

export default definePlugin({
  id: 'revocation-none',
  apiVersion: KERNEL_API_VERSION,
  provides: revocationPort,
  kind: 'none',
  description: 'no revocation list; tokens end at expiry',
  create: () => new NoRevocation(),
});
