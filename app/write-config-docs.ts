import { writeFileSync } from 'node:fs';
import { renderConfigDocs } from '../config/docs.ts';
import { wholeSchema } from '../config/whole-schema.ts';
import { BUILTIN } from './catalogue.ts';

/** The schema of every built-in plugin's settings, of which docs/config.md is the reference. */
export const builtinSchema = () => wholeSchema(BUILTIN);

if (import.meta.url === `file://${process.argv[1]}`) {
  writeFileSync(new URL('../docs/config.md', import.meta.url), renderConfigDocs(builtinSchema()));
  process.stdout.write('docs/config.md written\n');
}
