import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { examples, invocation } from '../command-kit.ts';
import { UsageError } from '../exit-codes.ts';
import { outputFormat, print } from '../output.ts';
import type { PolicyDocument } from '../../sdk/index.ts';

/** What a policy file may hold: the two maps PUT replaces, and the version and etag `policy get -o json` adds. */
const MAPS = ['roleBindings', 'subjectBindings'] as const;
const IGNORED = new Set(['version', 'etag']);

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** FILE (`-` for stdin) as a policy document, or a usage error saying what is wrong with it. */
export function readPolicyFile(file: string): PolicyDocument {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not JSON: ${(err as Error).message}`);
  }
  if (!isMap(parsed)) throw new UsageError(`${file} must hold a JSON object with roleBindings and subjectBindings`);
  // A misspelt field would be dropped without a word: name it instead.
  const unknown = Object.keys(parsed).filter((k) => !(MAPS as readonly string[]).includes(k) && !IGNORED.has(k));
  if (unknown.length)
    throw new UsageError(`${file} holds ${unknown.join(', ')}: a policy has roleBindings and subjectBindings`);
  for (const name of MAPS)
    if (!isMap(parsed[name])) throw new UsageError(`${file} needs ${name}, an object (it may be {})`);
  return {
    roleBindings: parsed.roleBindings as PolicyDocument['roleBindings'],
    subjectBindings: parsed.subjectBindings as PolicyDocument['subjectBindings'],
  };
}

/** policy get / put: the role-based policy's bindings, versioned by the service. */
export function registerPolicyCommands(program: Command): void {
  const policy = examples(
    program
      .command('policy')
      .description("Read and replace the role-based policy's bindings (a new version, applied without a restart)"),
    'svc policy get -o json > policy.json',
    'svc policy put policy.json --if-match "$(jq -r .etag policy.json)"',
  );
  examples(
    policy
      .command('get')
      .description(
        'Print the policy document (roleBindings and subjectBindings) as JSON; -o json adds version and etag',
      )
      .option('--etag', "print only the version's ETag, for put --if-match")
      .action(async (opts: { etag?: boolean }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        const answer = await client.getPolicy();
        if (opts.etag) process.stdout.write(`${answer.etag}\n`);
        else if (outputFormat(globals) === 'text') {
          const document = { roleBindings: answer.roleBindings, subjectBindings: answer.subjectBindings };
          process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
        } else print(answer, globals, ['etag']);
      }),
    'svc policy get > policy.json',
    'svc policy get --etag',
    'svc policy get -o json',
  );
  examples(
    policy
      .command('put')
      .description('Replace the policy with the document in FILE, as its next version (Human callers only)')
      .argument('<file>', 'a JSON file with roleBindings and subjectBindings (- for stdin)')
      .option('--if-match <etag>', 'the ETag of the version the change was made to (svc policy get --etag)')
      .option('--force', 'replace whatever version is current: fetch its ETag first (a change made meanwhile is lost)')
      .addHelpText(
        'after',
        [
          '',
          'The document replaces both maps whole. Without --if-match or --force nothing is sent (exit 2).',
          'A stale --if-match is PreconditionFailed (exit 1): get the policy again and redo the change.',
          'Bad bindings are InvalidField (exit 1), each named; nothing changes.',
        ].join('\n'),
      )
      .action(async (file: string, opts: { ifMatch?: string; force?: boolean }, cmd: Command) => {
        if (opts.ifMatch !== undefined && opts.force)
          throw new UsageError('give either --if-match or --force, not both');
        if (opts.ifMatch === undefined && !opts.force)
          throw new UsageError(
            'give --if-match ETAG (svc policy get --etag), or --force to replace the current version',
          );
        const document = readPolicyFile(file);
        const { client, globals } = invocation(cmd);
        const etag = opts.ifMatch ?? (await client.getPolicy()).etag;
        print(await client.putPolicy(document, etag), globals, ['etag']);
      }),
    'svc policy get -o json > policy.json   # edit it, then:',
    'svc policy put policy.json --if-match "$(jq -r .etag policy.json)"',
    'svc policy put policy.json --force',
  );
}
