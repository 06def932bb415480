import t from 'tap';
import { startTestService } from '../helpers/service.ts';

// Tag keys and values hold only letters, numbers, spaces and `_ . : / = + - @` (the characters AWS KMS
// allows), so a comma is refused with 400. DELETE /v1/keys/{id}/tags?keys=a,b splits its list on commas: a
// tag key holding one could never be removed (PUT only merges), and whoever may AddAttribute (a hostile
// agent included) could plant tags nobody can take off and fill the key's 50 tags for good. So every tag
// the API accepts, the API can remove, and the audit's `tagKeys` names exactly the tags changed.
const svc = await startTestService({ SVC_RISK_ENABLED: 'false' });
t.teardown(() => svc.stop());
const ops = svc.client('ops');

t.test('a tag key or value holding a comma is refused', async (t) => {
  const k = await ops.key({ algorithm: 'AES' });
  const key = await ops.call('PUT', `/v1/keys/${k}/tags`, { tags: { 'env,jwks': 'public' } });
  t.equal(key.status, 400, 'a tag key with a comma is refused at PUT');
  t.match(key.body.message, /may hold only letters, numbers, spaces and/);
  const value = await ops.call('PUT', `/v1/keys/${k}/tags`, { tags: { env: 'a,b' } });
  t.equal(value.status, 400, 'so is a tag value with a comma');
  const created = await ops.post('/v1/keys', { spec: { algorithm: 'AES', tags: { 'env,jwks': 'public' } } });
  t.equal(created.status, 400, 'and a key created with such a tag');
  t.same((await ops.get(`/v1/keys/${k}`)).body.tags, {}, 'the key carries no tag');
});

t.test('a tag set through the API can be removed through the API', async (t) => {
  const k = await ops.key({ algorithm: 'AES' });
  const tags = { env: 'prod', 'team:pay/ops': 'a b_c.d:e/f=g+h-i@j', 'név 2': 'ü' };
  const set = await ops.call('PUT', `/v1/keys/${k}/tags`, { tags });
  t.equal(set.status, 200, 'every allowed character is accepted');
  t.same(set.body.tags, tags);
  const names = Object.keys(tags).map(encodeURIComponent).join(',');
  const removed = await ops.call('DELETE', `/v1/keys/${k}/tags?keys=${names}`);
  t.equal(removed.status, 200);
  t.same(removed.body.tags, {}, 'the tags are gone');
  const trail = await ops.auditOf(k);
  const changes = trail.filter((r: any) => r.operation === 'AddAttribute' && r.context.tagKeys !== undefined);
  t.same(
    changes.map((r: any) => JSON.parse(r.context.tagKeys)),
    [Object.keys(tags).sort(), Object.keys(tags).sort()],
    'the audit names exactly the tags set, then exactly the tags removed',
  );
});
