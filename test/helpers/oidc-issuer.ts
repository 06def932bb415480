import type { Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import Provider from 'oidc-provider';

export interface IssuerKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function issuerKey(kid: string, alg: 'RS256' | 'ES256'): Promise<IssuerKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(privateKey)), kid, alg, use: 'sig' } };
}

export const AUDIENCE = 'urn:svc-kms';
const SECRET = 'client-secret-client-secret-client-secret';

/**
 * A real OpenID Connect issuer (oidc-provider) on 127.0.0.1, issuing client-credentials JWT access
 * tokens: client rs-client gets RS256 tokens, es-client ES256. `restart(keys)` brings it back on the same
 * port with another key set, which is how an issuer rotates its signing key.
 */
export class TestIssuer {
  private server: Server | undefined;
  url = '';

  constructor(private keys: IssuerKey[]) {}

  async start(port = 0): Promise<void> {
    const provider = new Provider(this.url || 'http://127.0.0.1', {
      clients: ['rs-client', 'es-client'].map((client_id) => ({
        client_id,
        client_secret: SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      })),
      jwks: { keys: this.keys.map((k) => k.jwk) },
      features: {
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => AUDIENCE,
          getResourceServerInfo: (_ctx: unknown, _resource: string, client: { clientId: string }) => ({
            scope: 'kms',
            audience: AUDIENCE,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: client.clientId === 'es-client' ? 'ES256' : 'RS256' } },
          }),
        },
      },
      extraTokenClaims: () => ({ svc_kind: 'service', svc_groups: ['kms-services'] }),
    });
    if (!this.url) {
      // The issuer URL must be known before the provider is built: listen first on a throwaway server to learn a port.
      const probe = (await import('node:net')).createServer();
      port = await new Promise<number>((resolve) =>
        probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)),
      );
      await new Promise((r) => probe.close(r));
      this.url = `http://127.0.0.1:${port}`;
      return this.start(port);
    }
    this.server = provider.listen(port || Number(new URL(this.url).port), '127.0.0.1');
    await new Promise((resolve) => this.server!.once('listening', resolve));
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server)
      await new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      });
  }

  async restart(keys: IssuerKey[]): Promise<void> {
    await this.stop();
    this.keys = keys;
    await this.start(Number(new URL(this.url).port));
  }

  /** A client-credentials access token, as a real client would get it. */
  async token(client: 'rs-client' | 'es-client', retried = false): Promise<string> {
    let res: Response;
    try {
      res = await fetch(`${this.url}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client}:${SECRET}`).toString('base64')}`,
        },
        body: 'grant_type=client_credentials&scope=kms',
      });
    } catch (err) {
      // After restart() a pooled keep-alive socket to the old server may be dead; one retry opens a new one.
      if (retried) throw err;
      return this.token(client, true);
    }
    const body = (await res.json()) as { access_token?: string; error?: string };
    if (!body.access_token) throw new Error(`token request failed: ${JSON.stringify(body)}`);
    return body.access_token;
  }

  /** A token signed with one of the issuer's keys but with claims of the test's choosing (for refusals). */
  async forge(
    key: IssuerKey,
    claims: Record<string, unknown>,
    times: { iat?: number; exp?: number; nbf?: number } = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ iss: this.url, aud: AUDIENCE, sub: 'forged', ...claims })
      .setProtectedHeader({ alg: key.alg, kid: key.kid })
      .setIssuedAt(times.iat ?? now)
      .setExpirationTime(times.exp ?? now + 300);
    if (times.nbf) jwt.setNotBefore(times.nbf);
    return jwt.sign(key.privateKey);
  }
}
