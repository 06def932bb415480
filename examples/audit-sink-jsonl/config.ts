import { Type } from '@sinclair/typebox';
// A published plugin would import these from the svc-kms package; the example sits in the repository.
import { defineSettings } from '../../kernel/index.ts';

/**
 * The plugin's settings, declared once: one TypeBox object rooted at the configuration's top. A nested
 * object without a description is a section (here `exampleJsonl`); each setting carries its description
 * and default. From this declaration come the config-file key (`exampleJsonl.file`), the variable
 * (`SVC_EXAMPLE_JSONL_FILE`: `SVC_` and the key in upper snake case, so it needs no `env`), the entry in
 * docs/config.md, and the typed value `configure` receives.
 */
export const jsonlSinkSettings = defineSettings(
  Type.Object({
    exampleJsonl: Type.Object({
      file: Type.String({ description: 'JSONL file the example sink appends to.', default: 'data/audit-copy.jsonl' }),
    }),
  }),
);
