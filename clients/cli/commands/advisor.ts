import type { Command } from 'commander';
import { examples, invocation, positiveInt } from '../command-kit.ts';
import { outputFormat, print } from '../output.ts';

/** JSON unless -o asks for a table or bare values (of every top-level field, or `valueFields`). */
function report(
  result: Record<string, unknown>,
  globals: Parameters<typeof outputFormat>[0],
  valueFields?: string[],
): void {
  if (outputFormat(globals) === 'text') print(result, true);
  else print(result, globals, valueFields);
}

/** advisor scan / explain: read-only reports; printed as JSON by default, the only shape the API promises for them. */
export function registerAdvisorCommands(program: Command): void {
  const advisor = examples(
    program.command('advisor').description('Read-only advice from the audit trail (Human callers)'),
    'svc advisor scan',
  );
  examples(
    advisor
      .command('scan')
      .description('Idle keys, broad-scope agents, active anomalies and the riskiest agents')
      .option('--lookback-days <n>', 'days of audit to read (server default 90)', positiveInt('--lookback-days'))
      .option('--unused-days <n>', 'a key unused this long is idle (server default 30)', positiveInt('--unused-days'))
      .option(
        '--broad-scope <n>',
        'agents with this many operations or more are broad (server default 5)',
        positiveInt('--broad-scope'),
      )
      .option('--top <n>', 'how long each list of the report may be (server default 5)', positiveInt('--top'))
      .action(
        async (
          opts: { lookbackDays?: number; unusedDays?: number; broadScope?: number; top?: number },
          cmd: Command,
        ) => {
          const { client, globals } = invocation(cmd);
          report(await client.advisorScan(opts), globals);
        },
      ),
    'svc advisor scan --lookback-days 30',
  );
  examples(
    advisor
      .command('explain')
      .description("One agent's timeline: events, risk scores, anomaly flags and a summary")
      .argument('<agentId>', 'agent-<uuid>')
      .option('--lookback-days <n>', 'days of audit to read', positiveInt('--lookback-days'))
      .option('--max-events <n>', 'at most this many events', positiveInt('--max-events'))
      .action(async (agentId: string, opts: { lookbackDays?: number; maxEvents?: number }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        report(await client.advisorExplain(agentId, opts), globals, ['summary']);
      }),
    'svc advisor explain agent-2f0c9c1e-5f6e-4a57-9a43-0e3b1c7f2d11 --max-events 200',
  );
}
