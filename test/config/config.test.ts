import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { resolveConfiguration } from '../../app/start.ts';
import { baseSchema } from '../../config/schema.ts';
import { settingsFragment } from '../../config/settings-fragment.ts';
import { stitchSchema } from '../../config/stitch.ts';
import { postgresConnection } from '../../plugins/sql-support/config.ts';
import { renderConfigDocs } from '../../config/docs.ts';
import { builtinSchema } from '../../app/write-config-docs.ts';
import { tempDir } from '../helpers/service.ts';

const fileWith = (name: string, text: string) => {
  const file = path.join(tempDir(), name);
  writeFileSync(file, text);
  return file;
};

t.test('defaults are SPEC 1 defaults', async (t) => {
  const { config } = await resolveConfiguration([], {});
  t.match(config.values, {
    http: { host: '0.0.0.0', port: 8080, maxBodyBytes: 1048576 },
    auth: { kind: 'dev', oidc: { jwksCacheTtlSeconds: 3600 } },
    journal: { kind: 'in-memory' },
    crypto: { kind: 'in-memory' },
    revocation: { kind: 'in-memory' },
    policy: { kind: 'dev' },
    audit: { kind: 'stdout', retentionDays: 365 },
    security: { preflight: 'warn' },
  });
});

t.test('settings belong to their plugins: a plugin that does not exist has no settings', async (t) => {
  const { schema } = await resolveConfiguration([], {});
  const s = schema as Record<string, any>;
  t.ok(s.advisor.llm.provider, 'the advisor plugin declares advisor.*');
  t.notOk(s.audit.kafka, 'no such plugin, no such settings');
  t.ok(s.crypto.cloudKms.kekArn, 'the cloud-kms plugin declares crypto.cloudKms.*');
  t.ok(s.crypto.localKek, 'the local root of trust declares crypto.localKek');
  const connection = settingsFragment(postgresConnection) as Record<string, any>;
  t.equal(s.jdbc.url, connection.jdbc.url, 'the PostgreSQL journal and audit sink share one declaration of jdbc.*');
  const base = settingsFragment(baseSchema);
  t.ok(
    stitchSchema(base, [
      { owner: 'a', fragment: connection },
      { owner: 'b', fragment: settingsFragment(postgresConnection) },
    ]),
    'the same leaf from two plugins stitches',
  );
  t.throws(
    () =>
      stitchSchema(base, [
        { owner: 'a', fragment: connection },
        { owner: 'b', fragment: structuredClone({ jdbc: { url: { doc: 'x', default: '' } } }) },
      ]),
    /config key jdbc\.url is declared twice \(by a and b\)/,
  );
});

t.test('a YAML file is read, and the environment overrides it', async (t) => {
  const file = fileWith('svc.yaml', 'http:\n  port: 9000\n  host: 127.0.0.1\njournal:\n  kind: rdb-embedded\n');
  const { config } = await resolveConfiguration(['--config', file], { SVC_HTTP_PORT: '9100' });
  t.match(config.values, { http: { port: 9100, host: '127.0.0.1' }, journal: { kind: 'rdb-embedded' } });
  const viaEnv = await resolveConfiguration([], { SVC_CONFIG_FILE: file });
  t.equal((viaEnv.config.values as any).http.port, 9000);
});

t.test('a JSON file works the same; plugin fragments are part of the schema', async (t) => {
  const file = fileWith(
    'svc.json',
    JSON.stringify({ keys: { rotationCheckSeconds: 5 }, policy: { roleBindings: { ops: ['Sign'] } } }),
  );
  const { config } = await resolveConfiguration([`--config=${file}`], {});
  t.match(config.values, { keys: { rotationCheckSeconds: 5 }, policy: { roleBindings: { ops: ['Sign'] } } });
  const { config: fromEnv } = await resolveConfiguration([], { SVC_POLICY_SUBJECT_BINDINGS: '{"bob":["Get"]}' });
  t.same((fromEnv.values as any).policy.subjectBindings, { bob: ['Get'] });
});

t.test('every bad value and unknown key is reported at once, with its env variable', async (t) => {
  const file = fileWith('bad.yaml', 'http:\n  port: 99999\ncolour: blue\n');
  await t.rejects(resolveConfiguration(['--config', file], { SVC_AUTH_KIND: 'kerberos' }), {
    message:
      /configuration is invalid \(file .*bad\.yaml and environment\):\n(.*\n)*.*auth\.kind: .*"kerberos" \(env SVC_AUTH_KIND\)/,
  });
  const err = await resolveConfiguration(['--config', file], { SVC_AUTH_KIND: 'kerberos' }).catch(
    (e: Error) => e.message,
  );
  t.match(err, /http\.port: .*\(env SVC_HTTP_PORT\)/);
  t.match(err, /colour/);
});

t.test('an unreadable or malformed file is named', async (t) => {
  await t.rejects(
    resolveConfiguration(['--config', '/nonexistent/svc.yaml'], {}),
    /config file \/nonexistent\/svc\.yaml cannot be read: ENOENT/,
  );
  await t.rejects(
    resolveConfiguration(['--config', fileWith('x.yaml', 'http: [unclosed')], {}),
    /is not valid YAML or JSON/,
  );
});

t.test('docs/config.md is generated from the schema and is up to date', async (t) => {
  const onDisk = readFileSync(new URL('../../docs/config.md', import.meta.url), 'utf8');
  t.equal(onDisk, renderConfigDocs(builtinSchema()), 'run `npm run docs:config` and commit docs/config.md');
  for (const name of [
    'SVC_HTTP_HOST',
    'SVC_JOURNAL_KIND',
    'SVC_RDB_EMBEDDED_JDBC_URL',
    'SVC_CRYPTO_LOCAL_KEK',
    'SVC_REVOCATION_KV_URI',
    'SVC_HONEY_KEYS',
    'SVC_AUDIT_RETENTION_DAYS',
    'SVC_SECURITY_PREFLIGHT',
    'SVC_KEYS_ROTATION_CHECK_SECONDS',
  ]) {
    t.match(onDisk, name);
  }
});

t.test('docs/errors.md is generated from the error catalogue and is up to date', async (t) => {
  const { renderErrorsDoc } = await import('../../docs/write-errors-doc.ts');
  t.equal(
    readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8'),
    renderErrorsDoc(),
    'run `npm run docs:errors` and commit docs/errors.md',
  );
});

t.test('docs/mcp.md lists the tools the operations registry yields and is up to date', async (t) => {
  const { MCP_DOC, registeredOperations, renderToolList, withToolList } = await import('../../docs/write-mcp-doc.ts');
  const onDisk = readFileSync(MCP_DOC, 'utf8');
  t.equal(
    onDisk,
    withToolList(onDisk, renderToolList(await registeredOperations())),
    'run `npm run docs:mcp` and commit docs/mcp.md',
  );
  t.match(onDisk, '| `encrypt` | `Encrypt` |', 'the tool list is there, not only its markers');
});
