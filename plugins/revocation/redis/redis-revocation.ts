import type { Redis } from 'ioredis';
import {
  type Clock,
  type Logger,
  type RevocationList,
  SvcError,
  UNKNOWN_EXPIRY_SECONDS,
} from '../../../kernel/index.ts';

/**
 * Revocation list in Redis: durable and shared by every node; each entry expires with
 * its token (24 h after the revocation when its expiry is unknown). Lookups fail open: with Redis unreachable a token
 * counts as not revoked and a warning is
 * logged (an outage of the list must not take the KMS down). Revoking fails closed: 503, so an operator
 * never believes a token is revoked when it is not.
 */
export class RedisRevocationList implements RevocationList {
  private redis: Redis | undefined;

  constructor(
    private readonly uri: string,
    private readonly prefix: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const { Redis } = await import('ioredis');
    this.redis = new Redis(this.uri, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    this.redis.on('error', () => {}); // reported where it matters: on lookups (warn) and revocations (503)
    try {
      await this.redis.connect();
    } catch (err) {
      this.logger.warn('revocation store unreachable at boot; tokens count as not revoked until it is back', {
        error: (err as Error).message,
      });
    }
  }

  async stop(): Promise<void> {
    this.redis?.disconnect();
    this.redis = undefined;
  }

  async probe(): Promise<void> {
    await this.client().ping();
  }

  async revoke(jti: string, expiresAt: number | undefined): Promise<void> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    if (expiresAt !== undefined && expiresAt <= now) return; // already unusable
    try {
      if (expiresAt === undefined) await this.client().set(this.prefix + jti, '1', 'EX', UNKNOWN_EXPIRY_SECONDS);
      else await this.client().set(this.prefix + jti, '1', 'EXAT', expiresAt);
    } catch (err) {
      throw new SvcError(
        'ServiceUnavailable',
        `the revocation store is unreachable; the token was not revoked (${(err as Error).message})`,
      );
    }
  }

  async isRevoked(jti: string): Promise<boolean> {
    try {
      return (await this.client().exists(this.prefix + jti)) === 1;
    } catch (err) {
      this.logger.warn('revocation store unreachable; token treated as not revoked (fail open)', {
        jti,
        error: (err as Error).message,
      });
      return false;
    }
  }

  private client(): Redis {
    if (!this.redis) throw new Error('revocation store is not started');
    return this.redis;
  }
}
