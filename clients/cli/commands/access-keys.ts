import type { Command } from 'commander';
import { examples, invocation } from '../command-kit.ts';
import type { AccessKey } from '../../sdk/index.ts';
import { listPrinter, outputFormat, print } from '../output.ts';

/** access-keys create / list / delete: the credentials AWS SDKs sign requests with (Human callers only). */
export function registerAccessKeyCommands(program: Command): void {
  const keys = examples(
    program
      .command('access-keys')
      .description('Access keys for AWS SDKs and the AWS CLI (Signature Version 4), for you or a Service'),
    'svc access-keys create',
    'svc access-keys list',
  );
  examples(
    keys
      .command('create')
      .description('Create an access key for yourself, or for a Service; the secret is printed this once')
      .option('--service <subject>', 'the Service the key is for (default: yourself, with your groups as they are now)')
      .addHelpText(
        'after',
        [
          '',
          'The secret access key is shown only in this answer: the service keeps it sealed and never shows it again.',
          'At most 10 keys per principal: the 11th is IllegalOperation (exit 1); delete one first.',
        ].join('\n'),
      )
      .action(async (opts: { service?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        const created = await client.createAccessKey(opts.service === undefined ? {} : { service: opts.service });
        print(created, globals, ['accessKeyId', 'secretAccessKey']);
        if (outputFormat(globals) === 'text')
          process.stderr.write('Keep the secret access key now: it is shown only once.\n');
      }),
    'svc access-keys create',
    'svc access-keys create --service billing-app -o json > billing-key.json',
    'svc access-keys create -o value   # the id, then the secret, one a line',
  );
  examples(
    keys
      .command('list')
      .description('List access keys by id with their principals (never a secret); needs Query on access-key:*')
      .option('--principal <subject>', "only this Human's or Service's keys")
      .action(async (opts: { principal?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        const out = listPrinter<AccessKey>(globals, {
          columns: [
            ['ACCESS KEY', (k) => k.accessKeyId],
            ['KIND', (k) => k.principal.kind],
            ['PRINCIPAL', (k) => k.principal.subject],
            ['CREATED', (k) => k.createdAt],
            ['BY', (k) => k.createdBy],
          ],
          value: (k) => k.accessKeyId,
          text: (k) =>
            [k.accessKeyId, `${k.principal.kind} ${k.principal.subject}`, k.createdAt, `by ${k.createdBy}`].join('  '),
        });
        const query = { limit: 1000, ...(opts.principal === undefined ? {} : { principal: opts.principal }) };
        for await (const page of client.accessKeyPages(query)) for (const k of page) out.add(k);
        out.flush();
      }),
    'svc access-keys list',
    'svc access-keys list --principal billing-app -o table',
  );
  examples(
    keys
      .command('delete')
      .description('Delete an access key: requests signed with it are refused from the next one, on every node')
      .argument('<accessKeyId>', 'the access key id (AKSV...)')
      .action(async (accessKeyId: string, _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.deleteAccessKey(accessKeyId), globals, ['accessKeyId']);
      }),
    'svc access-keys delete AKSVJ2ZQ4XW7MB3RKD5N',
  );
}
