import t from 'tap';
import { AUDIENCE, issuerKey, TestIssuer } from '../helpers/oidc-issuer.ts';
import { mcpClient, mcpPost, toolsCall } from '../helpers/mcp-client.ts';
import { startTestService } from '../helpers/service.ts';
import { TEST_SECRET } from '../helpers/tokens.ts';

/**
 * In oidc mode a standard MCP client that gets a 401 from /mcp finds the issuer the way MCP's
 * authorization spec says: WWW-Authenticate names the protected-resource metadata (RFC 9728), which
 * names the configured issuer as the authorization server.
 */
t.test('oidc: the 401 points at the protected-resource metadata, which names the issuer', async (t) => {
  const issuer = new TestIssuer([await issuerKey('rsa-1', 'RS256')]);
  await issuer.start();
  t.teardown(() => issuer.stop());
  const svc = await startTestService({
    SVC_AUTH_KIND: 'oidc',
    SVC_AUTH_OIDC_ISSUER_URI: issuer.url,
    SVC_AUTH_OIDC_AUDIENCE: AUDIENCE,
    SVC_AUTH_HMAC_SECRET: TEST_SECRET,
    SVC_RISK_ENABLED: 'false',
  });
  t.teardown(() => svc.stop());

  const anonymous = await mcpPost(svc.url, {}, toolsCall('get_key', {}));
  t.equal(anonymous.status, 401);
  t.match(anonymous.body, { error: 'Unauthorized', message: String });
  const metadataUrl = `${svc.url}/.well-known/oauth-protected-resource`;
  t.equal(anonymous.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}"`);
  const expired = await mcpPost(
    svc.url,
    { Authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.e30.x' },
    toolsCall('get_key', {}),
  );
  t.equal(expired.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}"`, 'a bad token too');

  for (const url of [metadataUrl, `${metadataUrl}/mcp`]) {
    const res = await fetch(url);
    t.equal(res.status, 200, url);
    t.same(await res.json(), {
      resource: `${svc.url}/mcp`,
      authorization_servers: [issuer.url],
      bearer_methods_supported: ['header'],
    });
  }
  t.equal((await fetch(`${metadataUrl}/elsewhere`)).status, 404);

  const mcp = await mcpClient(svc.url, { Authorization: `Bearer ${await issuer.token('rs-client')}` });
  t.teardown(() => mcp.close());
  t.ok((await mcp.listTools()).tools.length > 0, "the issuer's token opens the door");
});

t.test('other auth kinds serve no resource metadata and send no challenge', async (t) => {
  const svc = await startTestService({});
  t.teardown(() => svc.stop());
  t.equal((await fetch(`${svc.url}/.well-known/oauth-protected-resource`)).status, 404);
});
