import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startTestService, tempDir } from '../../test/helpers/service.ts';

const pollFile = async (file: string, lines: number): Promise<string[]> => {
  for (let i = 0; i < 2000; i++) {
    try {
      const found = readFileSync(file, 'utf8').trim().split('\n');
      if (found.length >= lines) return found;
    } catch {
      // not written yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${file} never reached ${lines} lines`);
};

t.test('loaded from plugins: in a config file, listed in the boot tree, copies each audit record', async (t) => {
  const dir = tempDir();
  const copy = path.join(dir, 'copy.jsonl');
  const config = path.join(dir, 'svc.yaml');
  writeFileSync(
    config,
    `plugins:\n  - ${path.resolve('examples/audit-sink-jsonl/index.ts')}\nexampleJsonl:\n  file: ${copy}\n`,
  );
  const svc = await startTestService({ SVC_CONFIG_FILE: config }, { dir });
  t.teardown(() => svc.stop());
  t.match(svc.logs.join('\n'), /auditFanout\s+example-audit-jsonl: copies every audit record/);
  const id = await svc.client('dana').key({ algorithm: 'AES' });
  const lines = (await pollFile(copy, 2)).map((l) => JSON.parse(l));
  t.match(lines[0], { operation: 'Create', resource: id, principal: { subject: 'dana' } });
  t.match(lines[1], { operation: 'Activate', resource: id });
});

t.test('a malformed plugin fails the boot with a sentence naming it', async (t) => {
  const dir = tempDir();
  const config = path.join(dir, 'svc.yaml');
  writeFileSync(config, `plugins:\n  - ${path.resolve('test/fixtures/malformed-plugin.ts')}\n`);
  await t.rejects(
    startTestService({ SVC_CONFIG_FILE: config }, { dir }),
    /plugin ".*malformed-plugin\.ts" is malformed: provides must be a port ref from the kernel/,
  );
  writeFileSync(config, 'plugins:\n  - ./does-not-exist.ts\n');
  await t.rejects(
    startTestService({ SVC_CONFIG_FILE: config }, { dir }),
    /plugin "\.\/does-not-exist\.ts" could not be loaded/,
  );
});
