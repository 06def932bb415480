import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { BaseConfig } from '../../config/schema.ts';
import { commandNodeId, nodeIdOf } from '../../config/node.ts';
import { warnUnknownVariables } from '../../config/unknown-variables.ts';
import { isUsableHmacSecret, MIN_HMAC_SECRET_BYTES, SVC_TOKEN_AUDIENCE, SVC_TOKEN_ISSUER } from '../../kernel/index.ts';
import { isServiceLogger } from '../../kernel/logger.ts';
import type { Logger } from '../../kernel/ports/logger.ts';
import { resolveConfiguration } from '../start.ts';
import type { HumanTokenRequest } from './human-token-request.ts';

/** issue-token cannot mint under this configuration; the process says why and exits 1. */
export class TokenRefused extends Error {}

const OTHER_KINDS: Record<string, string> = {
  dev: 'in dev mode callers name themselves with the X-Svc-User header and no token is needed',
  oidc:
    'in oidc mode Human tokens come from the identity provider ' +
    '(SVC_AUTH_OIDC_ISSUER_URI); the service signs only agent tokens',
};

/**
 * `npm start -- issue-token --subject NAME [--groups A,B] [--ttl 8h]`: reads the configuration the
 * server reads (file and environment), and in hmac mode signs a Human token with its secret, exactly
 * as the server will verify it: HS256, iss and aud svc-kms, a fresh jti (so it can be revoked), iat and
 * exp. The token is the only thing on stdout; what was issued (subject, groups, jti, expiry, never the
 * token) is a log line on stderr. Nothing is opened: no journal, audit store or listener. The minting
 * is not audited: whoever can run this holds the secret and could sign the same token with any JWT
 * library, so a record written here would show only the honest; what the audit trail holds is every
 * call made with the token, under its subject.
 */
export async function issueHumanToken(
  argv: string[],
  request: HumanTokenRequest,
  env: NodeJS.ProcessEnv,
  logger: Logger,
  print: (line: string) => void,
): Promise<void> {
  const { config, unknownVariables } = await resolveConfiguration(argv, env);
  const values = config.values as BaseConfig;
  if (isServiceLogger(logger))
    logger.configure({ level: values.log.level, node: commandNodeId(nodeIdOf(values), 'issue-token') });
  warnUnknownVariables(unknownVariables, logger);
  if (values.auth.kind !== 'hmac') {
    throw new TokenRefused(
      `issue-token mints tokens for auth.kind hmac only, and SVC_AUTH_KIND is ${values.auth.kind}: ${OTHER_KINDS[values.auth.kind] ?? 'this kind verifies tokens the service does not sign'}`,
    );
  }
  const secret = values.auth.hmacSecret;
  if (!isUsableHmacSecret(secret)) {
    throw new TokenRefused(
      `auth.hmacSecret (SVC_AUTH_HMAC_SECRET) is ${Buffer.byteLength(secret)} bytes; at least ${MIN_HMAC_SECRET_BYTES} are needed to sign tokens the service accepts`,
    );
  }
  const jti = randomUUID();
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + request.ttlSeconds;
  const token = await new SignJWT({ svc_kind: 'human', svc_groups: request.groups })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(SVC_TOKEN_ISSUER)
    .setAudience(SVC_TOKEN_AUDIENCE)
    .setSubject(request.subject)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(secret));
  print(token);
  logger.info('human token issued', {
    subject: request.subject,
    groups: request.groups,
    jti,
    expiresAt: new Date(exp * 1000).toISOString(),
  });
}
