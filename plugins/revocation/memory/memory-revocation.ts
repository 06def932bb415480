import { type Clock, type RevocationList, UNKNOWN_EXPIRY_SECONDS } from '../../../kernel/index.ts';

const MAX_ENTRIES = 100_000;

/**
 * Process-local revocation list: lost on restart, not shared between nodes. Entries expire with their
 * token (24 h after the revocation when its expiry is unknown) and are dropped then.
 */
export class MemoryRevocationList implements RevocationList {
  private readonly revoked = new Map<string, number>(); // jti -> expiry (epoch seconds)

  constructor(private readonly clock: Clock) {}

  async revoke(jti: string, expiresAt: number | undefined): Promise<void> {
    if (this.revoked.size >= MAX_ENTRIES) this.sweep();
    this.revoked.set(jti, expiresAt ?? Math.floor(this.clock.now().getTime() / 1000) + UNKNOWN_EXPIRY_SECONDS);
  }

  async isRevoked(jti: string): Promise<boolean> {
    const until = this.revoked.get(jti);
    if (until === undefined) return false;
    if (until * 1000 < this.clock.now().getTime()) {
      this.revoked.delete(jti);
      return false;
    }
    return true;
  }

  private sweep(): void {
    const now = this.clock.now().getTime() / 1000;
    for (const [jti, until] of this.revoked) if (until < now) this.revoked.delete(jti);
  }
}
