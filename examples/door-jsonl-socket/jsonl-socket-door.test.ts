import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { DOOR_CONTRACT_PLUGINS, doorContract, MALFORMED, type DoorClient } from '../../contracts/door.ts';
import { startTestService, tempDir } from '../../test/helpers/service.ts';

/** Sends lines on the socket and resolves with one parsed answer per line. */
async function exchange(socket: string, lines: object[]): Promise<any[]> {
  const conn = connect(socket);
  const answers: any[] = [];
  const done = new Promise<void>((resolve) =>
    createInterface({ input: conn }).on('line', (l) => answers.push(JSON.parse(l)) === lines.length && resolve()),
  );
  for (const l of lines) conn.write(`${JSON.stringify(l)}\n`);
  await done;
  conn.end();
  return answers.sort((a, b) => String(a.id).localeCompare(String(b.id)));
}

t.test('a door from plugins: runs operations through the same pipeline, audited like HTTP', async (t) => {
  const dir = tempDir();
  const socket = path.join(dir, 'svc.sock');
  const config = path.join(dir, 'svc.yaml');
  writeFileSync(
    config,
    `plugins:\n  - ${path.resolve('examples/door-jsonl-socket/index.ts')}\nexampleDoor:\n  socket: ${socket}\n`,
  );
  const svc = await startTestService({ SVC_CONFIG_FILE: config }, { dir });
  t.teardown(() => svc.stop());
  const alice = { 'X-Svc-User': 'alice' };
  const [created] = await exchange(socket, [
    {
      id: 'a1',
      operation: 'CreateKey',
      input: { spec: { name: 'via-socket', algorithm: 'EdDSA' } },
      credential: alice,
    },
  ]);
  const keyId = created.result.id;
  const answers = await exchange(socket, [
    { id: 'b1', operation: 'ActivateKey', input: { id: keyId }, credential: alice },
    {
      id: 'b2',
      operation: 'Sign',
      input: { id: keyId, messageBase64: 'aGk=' },
      credential: { 'X-Svc-User': 'svc-system' },
    },
    { id: 'b3', operation: 'NoSuchThing', input: {}, credential: alice },
    { id: 'b4', operation: 'Sign', input: { id: keyId, messageBase64: 'not base64!' }, credential: alice },
  ]);
  t.match(answers[0], { id: 'b1', result: { state: 'Active' } });
  t.match(answers[1], { id: 'b2', error: 'Unauthorized' }, 'svc-system is reserved on every door');
  t.match(answers[2], { id: 'b3', error: 'NotFound' });
  t.match(answers[3], { id: 'b4', error: 'InvalidField' });
  const trail = (await svc.client('auditor').get(`/v1/audit?key=${keyId}`)).body.records.map(
    (r: any) => `${r.operation} ${r.outcome} ${r.correlationId}`,
  );
  t.same(
    trail.sort(),
    ['Activate Success b1', 'Create Success a1', 'Sign InvalidField b4'],
    'one record per call, correlated by the line id',
  );
});

doorContract(t, 'jsonl-socket', async () => {
  const dir = tempDir();
  const socket = path.join(dir, 'svc.sock');
  const config = path.join(dir, 'svc.yaml');
  const plugins = [path.resolve('examples/door-jsonl-socket/index.ts'), ...DOOR_CONTRACT_PLUGINS];
  writeFileSync(config, `plugins:\n${plugins.map((p) => `  - ${p}\n`).join('')}exampleDoor:\n  socket: ${socket}\n`);
  const svc = await startTestService({ SVC_CONFIG_FILE: config }, { dir });
  const door: DoorClient = {
    call: async (operation, input, credential, id) => {
      const [{ id: _, ...answer }] = await exchange(socket, [
        { id, operation, input: input === MALFORMED ? 'not an object' : input, ...(credential ? { credential } : {}) },
      ]);
      return answer;
    },
  };
  return { restUrl: svc.url, doors: svc.kernel.doors, door, stop: () => svc.stop() };
});
