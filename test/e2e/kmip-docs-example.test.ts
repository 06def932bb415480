import { execFile } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { pykmipAvailable, startKmipService, SYSTEM_PYTHON } from '../helpers/kmip.ts';
import { serverMissing } from '../helpers/test-server.ts';

const run = promisify(execFile);

t.test("docs/kmip.md's PyKMIP configuration and code work as a user would copy them", async (t) => {
  if (!(await pykmipAvailable())) return serverMissing(t, 'python3-pykmip is not installed and could not be installed');
  const kmip = await startKmipService();
  t.teardown(() => kmip.stop());
  const dir = kmip.svc.dir;
  const client = kmip.identity('docs-example', '/CN=docs-example');
  copyFileSync(client.certFile, path.join(dir, 'client.pem'));
  copyFileSync(client.keyFile, path.join(dir, 'client.key'));
  copyFileSync(kmip.pki.caFile, path.join(dir, 'ca.pem'));

  const doc = readFileSync('docs/kmip.md', 'utf8');
  const section = doc.slice(doc.indexOf('### PyKMIP'), doc.indexOf('### MongoDB'));
  const ini = section.match(/```ini\n([\s\S]*?)```/)?.[1];
  const code = [...section.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]);
  t.ok(ini && code.length >= 2, 'the section has its configuration and code');
  // Only what names this machine changes: the server's address and where the files are.
  writeFileSync(
    path.join(dir, 'pykmip.conf'),
    ini!
      .replace('host=kms.example.com', 'host=127.0.0.1')
      .replace('port=5696', `port=${kmip.port}`)
      .replaceAll('/etc/pykmip/', `${dir}/`),
  );
  writeFileSync(
    path.join(dir, 'example.py'),
    `${code.join('\n').replaceAll('/etc/pykmip/', `${dir}/`)}\nprint('example ran')\n`,
  );
  // Asynchronously: the service answers in this process.
  const { stdout } = await run(SYSTEM_PYTHON, [path.join(dir, 'example.py')], { encoding: 'utf8' });
  t.equal(stdout.trim(), 'example ran', 'every call and assertion of the example passed');
});
