import t from 'tap';
import { cliEnv, svc, svcJson } from '../helpers/cli.ts';
import { startTestService, tempDir } from '../helpers/service.ts';
import { TEST_SECRET } from '../helpers/tokens.ts';

// -o json|table|value on the commands that print data, against a real service.
const service = await startTestService({ SVC_AUTH_HMAC_SECRET: TEST_SECRET });
t.teardown(() => service.stop());
const env = cliEnv(tempDir('svc-cli-home-'), { SVC_SERVER: service.url, SVC_USER: 'olivia' });
const json = svcJson(env);

/** stdout of a run that must succeed. */
async function out(args: string[], input?: string): Promise<string> {
  const r = await svc(args, env, input);
  if (r.code !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The column each header word starts at: every row's cell under it starts there too. */
function columnStarts(header: string): Map<string, number> {
  return new Map([...header.matchAll(/\S+/g)].map((m) => [m[0], m.index!]));
}

t.test('-o value prints the bare value a script wants, one a line', async (t) => {
  const id = (await out(['keys', 'create', '--name', 'scripted', '--algorithm', 'AES', '-o', 'value'])).trim();
  t.match(id, UUID, 'KEY=$(svc keys create ... -o value) is the id');
  t.equal(await out(['keys', 'get', id, '-o', 'value']), 'PreActive\n');
  t.equal(await out(['keys', 'activate', id, '-o', 'value']), 'Active\n');
  t.equal(await out(['-o', 'value', 'keys', 'rotate', id]), '2\n', 'the global flag goes before the command too');
  const ciphertext = (await out(['keys', 'encrypt', id, '--message', 'card 4111', '-o', 'value'])).trim();
  t.match(ciphertext, /^[A-Za-z0-9+/]+=*$/);
  t.equal(
    Buffer.from(
      (await out(['keys', 'decrypt', id, '--message-base64', ciphertext, '-o', 'value'])).trim(),
      'base64',
    ).toString(),
    'card 4111',
  );
  const version = await json(['version']);
  t.equal(await out(['version', '-o', 'value']), `${version.svc}\n`);
});

t.test("-o json is --json, the API's own fields", async (t) => {
  const id = (await json(['keys', 'create', '--name', 'same', '--algorithm', 'AES'])).id;
  t.same(JSON.parse(await out(['keys', 'get', id, '-o', 'json'])), await json(['keys', 'get', id]));
});

t.test('-o table: a header of field names over aligned columns, for a result and for a list', async (t) => {
  const key = await json(['keys', 'create', '--name', 'tabled', '--algorithm', 'EC', '--curve', 'P-256']);
  const [header, row, ...rest] = (await out(['keys', 'get', key.id, '-o', 'table'])).trimEnd().split('\n');
  t.same(rest, []);
  const starts = columnStarts(header!);
  t.equal(row!.slice(starts.get('ID')!).split(/\s{2,}/)[0], key.id);
  t.equal(row!.slice(starts.get('SPEC.NAME')!).split(/\s{2,}/)[0], 'tabled', 'nested fields get columns of their own');
  t.equal(row!.slice(starts.get('SPEC.CURVE')!).split(/\s{2,}/)[0], 'P-256');
  t.equal(row!.slice(starts.get('OWNER')!).split(/\s{2,}/)[0], 'olivia');
  t.equal(row!.slice(starts.get('STATE')!).split(/\s{2,}/)[0], 'PreActive');

  const listed = (await out(['keys', 'list', '-o', 'table'])).trimEnd().split('\n');
  t.match(listed[0], /^ID\s+STATE\s+ALGORITHM\s+VERSION\s+CREATED\s+NAME$/);
  const at = columnStarts(listed[0]!);
  const names = listed.slice(1).map((line) => line.slice(at.get('NAME')!));
  t.ok(names.includes('tabled') && names.includes('scripted'), 'each row has its name under NAME');
  for (const line of listed.slice(1))
    t.match(line.slice(at.get('STATE')!), /^(PreActive|Active)\s/, 'states line up under STATE');
  const ids = (await out(['keys', 'list', '-o', 'value'])).trimEnd().split('\n');
  t.equal(ids.length, listed.length - 1, 'value: one id a line, one per key');
  for (const id of ids) t.match(id, UUID);
});

t.test('agents, audit and advisor print in the three formats too', async (t) => {
  const jwt = (await out(['agent', 'issue', '--label', 'bot', '--scope', 'Get', '--ttl', '600', '-o', 'value'])).trim();
  t.match(jwt, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'agent issue -o value is the token');
  const agents = (await out(['agent', 'list', '-o', 'table'])).trimEnd().split('\n');
  t.match(agents[0], /^AGENT\s+PARENT\s+SCOPES\s+STATE\s+PURPOSE$/);
  t.match(agents[1], /^agent-[0-9a-f-]+\s+olivia\s+Get\s+expires \S+\s+bot$/);
  t.match(await out(['agent', 'list', '-o', 'value']), /^agent-[0-9a-f-]{36}\n$/);

  const records = (await out(['audit', 'tail', '-n', '3', '-o', 'table'])).trimEnd().split('\n');
  t.match(records[0], /^TIME\s+PRINCIPAL\s+KIND\s+OPERATION\s+RESOURCE\s+OUTCOME$/);
  t.equal(records.length, 4);
  const recordIds = (await out(['audit', 'tail', '-n', '3', '-o', 'value'])).trimEnd().split('\n');
  t.equal(recordIds.length, 3);
  t.equal(await out(['audit', 'verify', '-o', 'value']), 'true\n');
  t.match(await out(['audit', 'verify', '-o', 'table']), /^VALID\s+CHECKED\s+.*\ntrue\s+\d+/);
  t.match(await out(['advisor', 'scan', '-o', 'table']), /^\S+(\s+\S+)+\n.+\n$/, 'the advisor report as one table row');
  t.ok(JSON.parse(await out(['advisor', 'scan'])), 'without -o the advisor prints JSON, as before');
});

t.test('an unknown format, or --json with another -o, is a usage error', async (t) => {
  const yaml = await svc(['version', '-o', 'yaml'], env);
  t.equal(yaml.code, 2);
  t.match(yaml.stderr, /Allowed choices are json, table, value/);
  const both = await svc(['version', '--json', '-o', 'table'], env);
  t.equal(both.code, 2);
  t.match(both.stderr, /--json is -o json: give one of --json and -o table/);
  t.equal((await svc(['version', '--json', '-o', 'json'], env)).code, 0, 'the same asked twice is fine');
});
