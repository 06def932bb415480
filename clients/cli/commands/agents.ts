import type { Command } from 'commander';
import { examples, invocation, list, positiveInt } from '../command-kit.ts';
import { print } from '../output.ts';

/** agent issue, tokens revoke. */
export function registerAgentCommands(program: Command): void {
  const agent = examples(program.command('agent').description('Short-lived, scoped tokens for AI agents'), 'svc agent issue --label bot --scope Sign --ttl 600');
  examples(
    agent.command('issue').description('Issue an agent token (Human callers only; the token is printed once and never audited)')
      .requiredOption('--label <label>', 'what the agent is for')
      .requiredOption('--scope <operation>', 'an operation the agent may perform, such as Sign or Get (repeatable, or comma-separated)', list)
      .requiredOption('--ttl <seconds>', 'lifetime in seconds, 1..86400', positiveInt('--ttl'))
      .option('--parent <subject>', 'must be you; the agent is bounded by your permissions either way')
      .action(async (opts: { label: string; scope: string[]; ttl: number; parent?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.issueAgent({ label: opts.label, scopes: opts.scope, ttlSeconds: opts.ttl, parent: opts.parent }), globals.json);
      }),
    'svc agent issue --label invoice-bot --scope Sign --scope Get --ttl 900',
    'export SVC_TOKEN=$(svc agent issue --label bot --scope Sign,Get --ttl 600 --json | jq -r .jwt)',
  );

  const tokens = examples(program.command('tokens').description('Bearer tokens'), 'svc tokens revoke 9b1f4f0e-3c1a-4f7e-a1d2-6a0c5e7b8d90');
  examples(
    tokens.command('revoke').description('Refuse a token from now on, by its jti (needs a revocation store)').argument('<jti>', 'the token id (jti claim)')
      .option('--expires-at <iso>', 'when the token expires anyway, so the list can forget it then')
      .action(async (jti: string, opts: { expiresAt?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.revokeToken({ jti, expiresAt: opts.expiresAt }), globals.json);
      }),
    'svc tokens revoke 9b1f4f0e-3c1a-4f7e-a1d2-6a0c5e7b8d90',
  );
}
