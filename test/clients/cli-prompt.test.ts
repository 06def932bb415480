import t from 'tap';
import { cliEnv, svc, svcJson } from '../helpers/cli.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { mintToken, TEST_SECRET } from '../helpers/tokens.ts';

// Its own file: test/clients/cli.test.ts is already long on a loaded machine.
const service = await startTestService({ SVC_AUTH_KIND: 'hmac', SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => service.stop());
const alice = await mintToken({ sub: 'alice' }, { ttlSeconds: 3600 });
const env = cliEnv(tempDir('svc-cli-home-'), { SVC_SERVER: service.url, SVC_TOKEN: alice });
const json = svcJson(env);

t.test(
  '--model/--prompt-id and SVC_MODEL/SVC_PROMPT_ID name the prompt of the calls; audit tail --prompt reads them back',
  async (t) => {
    const key = await json([
      'keys',
      'create',
      '--name',
      'cli-prompted',
      '--algorithm',
      'HMAC',
      '--model',
      'cli-model',
      '--prompt-id',
      'cli-prompt-1',
    ]);
    const fromEnv = await svc(['keys', 'get', key.id, '--json'], {
      ...env,
      SVC_MODEL: 'env-model',
      SVC_PROMPT_ID: 'cli-prompt-2',
    });
    t.equal(fromEnv.code, 0, fromEnv.stderr);
    const one = await svc(['audit', 'tail', '--prompt', 'cli-prompt-1', '--json'], env);
    t.equal(one.code, 0, one.stderr);
    const records = one.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    t.same(
      records.map((r: { operation: string }) => r.operation),
      ['Create'],
      'exactly the flagged call',
    );
    t.match(records[0].context, { 'agent.model': 'cli-model', 'agent.promptId': 'cli-prompt-1' });
    const two = await svc(['audit', 'tail', '--prompt', 'cli-prompt-2', '--json'], env);
    t.match(JSON.parse(two.out.trim()), {
      operation: 'Get',
      context: { 'agent.model': 'env-model', 'agent.promptId': 'cli-prompt-2' },
    });
    const refused = await svc(['keys', 'get', key.id, '--prompt-id', 'a\u0085b'], env);
    t.equal(refused.code, 1);
    t.match(refused.stderr, /promptId must be printable ASCII text/, 'refused before sending, clearly');
  },
);
