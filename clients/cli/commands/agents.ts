import type { Command } from 'commander';
import { examples, invocation, list, positiveInt, repeatable } from '../command-kit.ts';
import type { Agent as AgentInfo } from '../../sdk/index.ts';
import { listPrinter, print } from '../output.ts';

/** agent issue / list / revoke, tokens revoke. */
export function registerAgentCommands(program: Command): void {
  // `agents` too: the API's path is /v1/agents, and a plural is what many type.
  const agent = examples(
    program.command('agent').alias('agents').description('Short-lived, scoped tokens for AI agents'),
    'svc agent issue --label bot --scope Sign --ttl 600',
  );
  examples(
    agent
      .command('issue')
      .description('Issue an agent token (Human callers only; the token is printed once and never audited)')
      .requiredOption('--label <label>', 'what the agent is for')
      .requiredOption(
        '--scope <operation>',
        'an operation the agent may perform, such as Sign or Get (repeatable, or comma-separated)',
        list,
      )
      .requiredOption('--ttl <seconds>', 'lifetime in seconds, 1..86400', positiveInt('--ttl'))
      .option('--parent <subject>', 'must be you; the agent is bounded by your permissions either way')
      .option(
        '--keys <pattern>',
        'limit the agent to these keys: id:UUID, name:GLOB, owner:self or alias:NAME (repeatable; default: any key)',
        repeatable,
      )
      .action(
        async (
          opts: { label: string; scope: string[]; ttl: number; parent?: string; keys?: string[] },
          cmd: Command,
        ) => {
          const { client, globals } = invocation(cmd);
          const request = {
            label: opts.label,
            scopes: opts.scope,
            ttlSeconds: opts.ttl,
            parent: opts.parent,
            ...(opts.keys ? { keys: opts.keys } : {}),
          };
          print(await client.issueAgent(request), globals, ['jwt']);
        },
      ),
    'svc agent issue --label invoice-bot --scope Sign --scope Get --ttl 900',
    "svc agent issue --label billing-bot --scope Encrypt --ttl 600 --keys alias:billing --keys 'name:invoices-*'",
    'export SVC_TOKEN=$(svc agent issue --label bot --scope Sign,Get --ttl 600 --json | jq -r .jwt)',
  );

  examples(
    agent
      .command('list')
      .description("List agent tokens: yours, or every agent's if you may Query agent:* (Human callers only)")
      .option('--parent <subject>', "only this parent's agents")
      .option('--limit <n>', 'at most this many, newest first (1..1000)', positiveInt('--limit'))
      .action(async (opts: { parent?: string; limit?: number }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        const state = (a: AgentInfo) => (a.revoked ? `revoked ${a.revokedAt}` : `expires ${a.expiresAt}`);
        const out = listPrinter<AgentInfo>(globals, {
          columns: [
            ['AGENT', (a) => a.agentId],
            ['PARENT', (a) => a.parent],
            ['SCOPES', (a) => a.scopes.join(',') || '-'],
            ['STATE', state],
            ['PURPOSE', (a) => a.purpose],
          ],
          value: (a) => a.agentId,
          text: (a) => [a.agentId, a.parent, a.scopes.join(',') || '-', state(a), a.purpose].join('  '),
        });
        for (const a of (await client.listAgents({ parent: opts.parent, limit: opts.limit })).agents) out.add(a);
        out.flush();
      }),
    'svc agent list',
    'svc agent list --parent alice --json',
  );
  examples(
    agent
      .command('revoke')
      .description('Stop an agent now: its token is refused from its next call (its parent, or a Human allowed Revoke)')
      .argument('<agentId>', 'the agent id (agent-<uuid>)')
      .action(async (agentId: string, _opts, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.revokeAgent(agentId), globals, ['revokedAt']);
      }),
    'svc agent revoke agent-6f1c2a8e-1d2b-4c3d-9e4f-5a6b7c8d9e0f',
  );

  const tokens = examples(
    program.command('tokens').description('Bearer tokens'),
    'svc tokens revoke 9b1f4f0e-3c1a-4f7e-a1d2-6a0c5e7b8d90',
  );
  examples(
    tokens
      .command('revoke')
      .description('Refuse a token from now on, by its jti (needs a revocation store)')
      .argument('<jti>', 'the token id (jti claim)')
      .option('--expires-at <iso>', 'when the token expires anyway, so the list can forget it then')
      .action(async (jti: string, opts: { expiresAt?: string }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        print(await client.revokeToken({ jti, expiresAt: opts.expiresAt }), globals);
      }),
    'svc tokens revoke 9b1f4f0e-3c1a-4f7e-a1d2-6a0c5e7b8d90',
  );
}
