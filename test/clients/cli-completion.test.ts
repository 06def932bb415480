import { execFile } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { SVC_BIN, svc, cliEnv } from '../helpers/cli.ts';
import { debianTool } from '../helpers/debian-tool.ts';
import { tempDir } from '../helpers/service.ts';
import { serverMissing } from '../helpers/test-server.ts';

// Shell completion, in the real shells: the scripts `svc completion SHELL` prints, loaded the way their
// comments say, with `svc` on the PATH.
const home = tempDir('svc-completion-');
symlinkSync(SVC_BIN, path.join(home, 'svc'));
const env = { ...cliEnv(home), PATH: `${home}:${process.env.PATH}` };

function run(shell: string, script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(shell, ['-c', script], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const lines = (text: string) => text.split('\n').filter(Boolean);

/** What bash offers for `svc WORDS...` (the last word being typed), through the script svc prints. */
async function bashComplete(t: Test, words: string[]): Promise<string[]> {
  const r = await run(
    'bash',
    `source <(svc completion bash)
COMP_WORDS=(svc ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}
_svc_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
  );
  t.equal(r.code, 0, r.stderr);
  return lines(r.stdout);
}

t.test(
  'bash: commands, subcommands, flags and fixed flag values complete; a file argument falls back to file names',
  async (t) => {
    const complete = (...words: string[]) => bashComplete(t, words);
    t.same(await complete('ke'), ['keys']);
    t.same(await complete('keys', 'cr'), ['create']);
    t.same(await complete('keys', 'create', '--na'), ['--name']);
    t.ok(
      (await complete('keys', 'sign', 'KEY', '--')).includes('--server'),
      'the global flags complete under a subcommand',
    );
    t.same(await complete('-o', ''), ['json', 'table', 'value']);
    t.same(await complete('keys', 'list', '--output', 't'), ['table']);
    t.same(await complete('completion', ''), ['bash', 'zsh', 'fish']);
    t.same(
      await complete('keys', 'sign', 'KEY', '--file', ''),
      [],
      'no candidates: bash completes file names (-o default)',
    );
    t.same(await complete('keys', 'create', '--name', 'ke'), [], 'a free value is not completed with command names');
    t.notOk((await complete('')).includes('__complete'), 'the hidden helper is not offered');
    const registered = await run('bash', 'source <(svc completion bash); complete -p svc');
    t.match(registered.stdout, /complete -o default -F _svc_complete svc/);
  },
);

t.test('the key-model commands complete like the others: groups, subcommands, their flags', async (t) => {
  const complete = (...words: string[]) => bashComplete(t, words);
  t.same(await complete('keys', 'al'), ['alias']);
  t.same(await complete('keys', 'alias', ''), ['create', 'move', 'delete', 'list']);
  t.same(await complete('keys', 'tag', ''), ['set', 'remove']);
  t.same(await complete('keys', 'di'), ['disable']);
  t.same(await complete('keys', 'list', '--ta'), ['--tag']);
  t.same(await complete('po'), ['policy']);
  t.same(await complete('policy', 'put', 'FILE', '--i'), ['--if-match']);
  t.same(await complete('policy', 'put', ''), [], 'the file argument: file names');
  t.same(await complete('agents', 'issue', '--ke'), ['--keys', '--key-file'], 'through the agents alias of agent');
});

t.test('fish: completions with their descriptions, as `complete -C` lists them', async (t) => {
  if (!debianTool('fish', 'fish')) return serverMissing(t, 'fish is not installed and cannot be installed here');
  const complete = async (line: string) => {
    const r = await run('fish', `svc completion fish | source; complete -C '${line}'`);
    t.equal(r.code, 0, r.stderr);
    return lines(r.stdout);
  };
  t.same(await complete('svc keys cr'), ['create\tCreate a key (state PreActive, version 1)']);
  t.same(await complete('svc -o '), ['json', 'table', 'value']);
  t.same(await complete('svc completion '), ['bash', 'fish', 'zsh'], 'fish sorts them');
  t.match(await complete('svc keys create --na'), [/^--name\ta label for people/]);
});

t.test('zsh: the function registers for svc after compinit, and offers what the line allows', async (t) => {
  if (!debianTool('zsh', 'zsh')) return serverMissing(t, 'zsh is not installed and cannot be installed here');
  const registered = await run(
    'zsh',
    'autoload -U compinit && compinit -u -D; source <(svc completion zsh); print -- $_comps[svc]',
  );
  t.equal(registered.stdout, '_svc\n', registered.stderr);
  // compadd and _files only run inside a completion widget; stand-ins print what _svc hands them.
  const complete = async (...words: string[]) => {
    const r = await run(
      'zsh',
      `compdef() { :; }; compadd() { print -l -- "\${(@P)\${@[-1]}}"; }; _files() { print FILES; }
source <(svc completion zsh)
words=(svc ${words.map((w) => `'${w}'`).join(' ')}); CURRENT=${words.length + 1}; _svc`,
    );
    t.equal(r.code, 0, r.stderr);
    return lines(r.stdout);
  };
  t.same(await complete('keys', 'cr'), ['create']);
  t.same(await complete('--output', ''), ['json', 'table', 'value']);
  t.same(await complete('keys', 'sign', 'KEY', '--file', ''), ['FILES'], 'no candidates: file names');
});

t.test('svc completion without a known shell is a usage error', async (t) => {
  const r = await svc(['completion', 'powershell'], env);
  t.equal(r.code, 2);
  t.match(r.stderr, /Allowed choices are bash, zsh, fish/);
});
