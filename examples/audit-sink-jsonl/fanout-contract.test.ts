import { chmod, readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { auditFanoutContract } from '../../contracts/audit-fanout.ts';
import { tempDir } from '../../test/helpers/service.ts';
import { JsonlFileSink } from './jsonl-file-sink.ts';

// A third-party fan-out sink runs the same conformance suite as the built-in ones.
auditFanoutContract(t, async () => {
  const dir = path.join(tempDir(), 'out');
  const file = path.join(dir, 'copy.jsonl');
  return {
    sink: new JsonlFileSink(file),
    delivered: async () =>
      (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    // A directory where the file should be: every append fails, as on a lost volume.
    breakDestination: async () => {
      const { rm, mkdir } = await import('node:fs/promises');
      await rm(file, { force: true });
      await mkdir(file, { recursive: true });
      await chmod(dir, 0o700);
    },
  };
});
