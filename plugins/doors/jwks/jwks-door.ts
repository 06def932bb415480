import { randomUUID } from 'node:crypto';
import {
  type Door,
  type DoorHttpRequest,
  type DoorMount,
  isSvcError,
  type Logger,
  type OperationRunner,
  SYSTEM_PRINCIPAL,
} from '../../../kernel/index.ts';

export const JWKS_PATH = '/.well-known/jwks.json';
/** The tag that publishes a key's public keys. */
const PUBLISHED = 'jwks:public';

interface KeySet {
  body: string;
  readAt: number;
}

/**
 * The deployment's public JSON Web Key Set at /.well-known/jwks.json, for anyone verifying its JWTs: the
 * keys tagged jwks=public, read through the pipeline as svc-system (Locate, then each key's JWKS) at most
 * once per cache period however often it is fetched, so an anonymous caller can neither load the
 * journal nor fill the audit trail. A key that cannot serve (disabled, scheduled, compromised, destroyed) is
 * left out. Only a caller with Administer may tag a key jwks=public.
 */
export class JwksDoor implements Door {
  readonly name = 'jwks';
  private current: KeySet | undefined;
  private reading: Promise<KeySet> | undefined;

  constructor(
    private readonly runner: OperationRunner,
    private readonly logger: Logger,
    private readonly cacheSeconds: number,
  ) {}

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  mounts(): DoorMount[] {
    return [{ path: JWKS_PATH, handle: (request) => this.handle(request) }];
  }

  private async handle(request: DoorHttpRequest): Promise<void> {
    const { req, res } = request;
    if ((req.method !== 'GET' && req.method !== 'HEAD') || request.path !== '') {
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 'NotFound', message: `the public key set is GET ${JWKS_PATH}` }));
      return;
    }
    const set = await this.keySet();
    res.writeHead(200, {
      'Content-Type': 'application/jwk-set+json',
      'Cache-Control': `public, max-age=${this.cacheSeconds}`,
    });
    res.end(req.method === 'HEAD' ? undefined : set.body);
  }

  private keySet(): Promise<KeySet> {
    if (this.current && Date.now() - this.current.readAt < this.cacheSeconds * 1000)
      return Promise.resolve(this.current);
    this.reading ??= this.read().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async read(): Promise<KeySet> {
    const caller = { principal: SYSTEM_PRINCIPAL, requestId: `jwks-${randomUUID()}`, door: 'internal' };
    const keys: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = (await this.runner.run(
        'LocateKeys',
        { tag: PUBLISHED, limit: 1000, ...(cursor ? { cursor } : {}) },
        caller,
      )) as { keys: Array<{ id: string; state: string }>; nextCursor?: string };
      for (const key of page.keys) {
        if (key.state === 'Destroyed' || key.state === 'Compromised') continue;
        try {
          keys.push(...((await this.runner.run('GetKeyJwks', { id: key.id }, caller)) as { keys: unknown[] }).keys);
        } catch (err) {
          // A published key that cannot serve now (disabled, scheduled, symmetric) is simply not listed.
          if (!isSvcError(err))
            this.logger.error('reading a published key set failed', { keyId: key.id, error: String(err) });
        }
      }
      cursor = page.nextCursor;
    } while (cursor);
    this.current = { body: JSON.stringify({ keys }), readAt: Date.now() };
    return this.current;
  }
}
