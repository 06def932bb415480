import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { SVC_BIN } from '../helpers/cli.ts';
import { spawnService } from '../helpers/process.ts';
import { makeTestPki } from '../helpers/tls-certs.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The first sh block after a heading of the README, as a user would paste it. */
function block(heading: string): string {
  const from = README.indexOf(heading);
  const start = README.indexOf('```sh\n', from) + '```sh\n'.length;
  return README.slice(start, README.indexOf('```', start));
}

/**
 * The README's walk-through (curl) and its svc command-line examples, run as written against a service
 * started with certificate files, after the README's own HTTPS instructions: https:// addresses and
 * CURL_CA_BUNDLE / SVC_CA_FILE. Only the port differs, and `audit tail --follow` (which runs until Ctrl-C)
 * is left out.
 */
t.test('every example of the README works over HTTPS', async (t) => {
  const pki = makeTestPki();
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-readme-'));
  const service = spawnService({
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_HTTP_PORT: '0',
    SVC_HTTP_TLS_CERT_FILE: pki.serverCertFile,
    SVC_HTTP_TLS_KEY_FILE: pki.serverKeyFile,
    SVC_JOURNAL_KIND: 'rdb-embedded',
    SVC_AUDIT_KIND: 'rdb-embedded',
    SVC_RDB_EMBEDDED_JDBC_URL: path.join(dir, 'journal.db'),
    SVC_AUDIT_EMBEDDED_PATH: path.join(dir, 'audit.db'),
    SVC_DATA_DIR: dir,
  });
  t.teardown(() => service.child.kill('SIGKILL'));
  const port = await service.listening;

  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  symlinkSync(SVC_BIN, path.join(bin, 'svc'));
  writeFileSync(path.join(dir, 'notes.txt'), 'the notes of the README\n');
  const https = (text: string) =>
    text
      .replaceAll('http://localhost:8080', `https://localhost:${port}`)
      .replaceAll('http://127.0.0.1:8080', `https://127.0.0.1:${port}`);
  const walkThrough = https(block('## Walk-through'));
  const cli = https(block('## The `svc` command line'))
    .split('\n')
    .filter((line) => !line.includes('--follow'))
    .join('\n');
  t.match(walkThrough, /^S=https:\/\/localhost:\d+$/m, 'the walk-through addresses the service over HTTPS');

  // Output goes to files, as in a terminal session: the walk-through's `tee /dev/stderr` cannot open a socket.
  let runs = 0;
  const run = (script: string) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const out = path.join(dir, `out-${++runs}`);
      const err = path.join(dir, `err-${runs}`);
      const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
        cwd: dir,
        env: {
          PATH: `${bin}:${process.env.PATH}`,
          HOME: dir,
          XDG_CONFIG_HOME: dir,
          CURL_CA_BUNDLE: pki.caFile,
          SVC_CA_FILE: pki.caFile,
        },
        stdio: ['ignore', openSync(out, 'w'), openSync(err, 'w')],
      });
      child.on('close', (code) =>
        resolve({ code: code ?? 1, stdout: readFileSync(out, 'utf8'), stderr: readFileSync(err, 'utf8') }),
      );
    });
  const curl = await run(walkThrough);
  t.equal(curl.code, 0, curl.stderr);
  t.match(curl.stdout, /"state":"Active"/, 'activate answered over HTTPS');
  t.match(curl.stdout, /"plaintextBase64":"Y2FyZCA0MTEx"/, 'decrypt gave "card 4111" back');
  t.match(curl.stdout, /"valid":true/, 'the signature verified');
  t.match(curl.stdout, /"state":"Destroyed"/, 'the key was destroyed');

  const commands = await run(cli);
  t.equal(commands.code, 0, `${commands.stdout}\n${commands.stderr}`);
  t.match(commands.stdout, /the notes of the README/, 'svc keys decrypt printed notes.txt back');
  t.match(commands.stdout, /payroll/, 'svc keys list names the key');
});
