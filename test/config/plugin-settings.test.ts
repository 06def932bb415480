import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import t from 'tap';
import { resolveConfiguration } from '../../app/start.ts';
import { renderConfigDocs } from '../../config/docs.ts';
import { wholeSchema } from '../../config/whole-schema.ts';
import { definePlugin, defineSettings, detectorPort, KERNEL_API_VERSION } from '../../kernel/index.ts';
import { postgresConnection } from '../../plugins/sql-support/config.ts';
import { tempDir } from '../helpers/service.ts';

// A provider nobody has seen: one module with one settings declaration, loaded from `plugins:`.
const THROWAWAY = `
import { Type } from ${JSON.stringify(import.meta.resolve('@sinclair/typebox'))};
import { definePlugin, defineSettings, detectorPort, KERNEL_API_VERSION } from ${JSON.stringify(path.resolve('kernel/index.ts'))};

const settings = defineSettings(Type.Object({
  throwaway: Type.Object({
    greeting: Type.String({ description: 'What the throwaway detector says.', default: 'hello' }),
    credential: Type.String({ description: 'A credential of the throwaway detector.', default: '', sensitive: true }),
    limit: Type.Integer({ minimum: 0, description: 'A limit of the throwaway detector.', default: 7, env: 'SVC_THROWAWAY_MAX' }),
  }),
}));

export default definePlugin({
  id: 'throwaway-detector',
  apiVersion: KERNEL_API_VERSION,
  provides: detectorPort,
  kind: 'Throwaway',
  description: 'a detector that exists for one test',
  settings,
  configure: ({ throwaway }) => ({ limit: throwaway.limit }),
  create: () => ({ name: 'Throwaway', observe: () => [] }),
});
`;

function throwawayConfig(extra = ''): string {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'throwaway.ts'), THROWAWAY);
  const file = path.join(dir, 'svc.yaml');
  writeFileSync(file, `plugins:\n  - ./throwaway.ts\n${extra}`);
  return file;
}

t.test('a provider declares its settings once: its section, variables, docs and redaction follow', async (t) => {
  const file = throwawayConfig('throwaway:\n  greeting: from the file\n');
  const { config, schema } = await resolveConfiguration(['--config', file], {
    SVC_THROWAWAY_CREDENTIAL: 'swordfish',
    SVC_THROWAWAY_MAX: '3',
  });
  t.match(
    config.values,
    { throwaway: { greeting: 'from the file', credential: 'swordfish', limit: 3 } },
    'file section and variables (derived and declared) are read',
  );
  const docs = renderConfigDocs(schema);
  t.match(
    docs,
    /\| `throwaway\.greeting` \| `SVC_THROWAWAY_GREETING` \| string \| `"hello"` \| What the throwaway detector says\. \|/,
  );
  t.match(docs, /\| `throwaway\.limit` \| `SVC_THROWAWAY_MAX` \| nat \| `7` \|/);
  t.match(
    docs,
    /\| `throwaway\.credential` \| `SVC_THROWAWAY_CREDENTIAL` \|.*Sensitive: redacted by --print-config\. \|/,
  );
  const printed = config.redacted(); // what --print-config prints
  t.notMatch(printed, /swordfish/, 'the sensitive setting is never printed');
  t.match(JSON.parse(printed).throwaway, { greeting: 'from the file', credential: '[Sensitive]', limit: 3 });
  await t.rejects(
    resolveConfiguration(['--config', file], { SVC_THROWAWAY_MAX: 'many' }),
    /throwaway\.limit: .*\(env SVC_THROWAWAY_MAX\)/,
    'a bad value names the key and its variable',
  );
  await t.rejects(
    resolveConfiguration(['--config', file], { SVC_THROWAWAY_GREETNG: 'hi' }),
    /SVC_THROWAWAY_GREETNG .*did you mean SVC_THROWAWAY_GREETING\?/,
    'its variables are known names',
  );
  await t.rejects(
    resolveConfiguration(['--config', throwawayConfig('throwaway:\n  colour: blue\n')], {}),
    /throwaway\.colour/,
    'an undeclared key of its section is refused',
  );
});

t.test('two plugins may share one setting object, never declare two different settings of one key', async (t) => {
  const plugin = (id: string, settings: ReturnType<typeof defineSettings>) =>
    definePlugin({
      id,
      apiVersion: KERNEL_API_VERSION,
      provides: detectorPort,
      description: id,
      settings,
      create: () => ({ name: id, observe: () => [] }),
    });
  const shared = wholeSchema([plugin('a', postgresConnection), plugin('b', postgresConnection)]) as Record<string, any>;
  t.equal(shared.jdbc.url.env, 'SVC_JDBC_URL', 'the shared setting is one setting');
  const other = defineSettings(
    Type.Object({ jdbc: Type.Object({ url: Type.String({ description: 'x', default: '' }) }) }),
  );
  t.throws(
    () => wholeSchema([plugin('a', postgresConnection), plugin('b', other)]),
    /config key jdbc\.url is declared twice \(by a and b\)/,
  );
  const undocumented = defineSettings(Type.Object({ x: Type.Object({ y: Type.String({ default: '' }) }) }));
  t.throws(() => wholeSchema([plugin('c', undocumented)]), /setting x\.y needs a description and a default/);
});
