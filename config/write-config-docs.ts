import { writeFileSync } from 'node:fs';
import { BUILTIN } from '../app/catalogue.ts';
import { renderConfigDocs } from './docs.ts';
import { baseSchema } from './schema.ts';
import { stitchSchema } from './stitch.ts';

export const builtinSchema = () => stitchSchema(baseSchema, BUILTIN.flatMap((p) => (p.config ? [{ owner: p.id, fragment: p.config }] : [])));

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(new URL('../docs/config.md', import.meta.url), renderConfigDocs(builtinSchema()));
  process.stdout.write('docs/config.md written\n');
}
