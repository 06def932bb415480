import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { AuditQuery, AuditRecord, SvcClient } from '../../sdk/index.ts';
import { examples, invocation, positiveInt } from '../command-kit.ts';
import { listPrinter, outputFormat, print, printLine, type ListShape } from '../output.ts';
import { EXIT } from '../exit-codes.ts';

const PAGE = 1000;

const line = (r: AuditRecord) =>
  [r.occurredAt, `${r.principal.subject}(${r.principal.kind})`, r.operation, r.resource || '-', r.outcome].join('  ');
const identity = (r: AuditRecord) => JSON.stringify(r);
const RECORDS: ListShape<AuditRecord> = {
  columns: [
    ['TIME', (r) => r.occurredAt],
    ['PRINCIPAL', (r) => r.principal.subject],
    ['KIND', (r) => r.principal.kind],
    ['OPERATION', (r) => r.operation],
    ['RESOURCE', (r) => r.resource || '-'],
    ['OUTCOME', (r) => r.outcome],
  ],
  value: (r) => r.id,
  text: line,
};

/** Every record from `since` on (inclusive; all of them without it), oldest first, reading all pages. */
/**
 * The tail's own queries are audited too (as Query records of the caller). Each carries a request id
 * with this run's prefix, which comes back as the record's correlationId, so the tail can leave its own
 * polling out of what it prints and show every other record, other Query records included.
 */
class OwnQueries {
  private readonly prefix = `svc-audit-tail-${randomUUID()}`;
  private sent = 0;

  next(): { requestId: string } {
    return { requestId: `${this.prefix}-${++this.sent}` };
  }

  others(records: AuditRecord[]): AuditRecord[] {
    return records.filter((r) => !r.correlationId.startsWith(this.prefix));
  }
}

async function recordsSince(
  client: SvcClient,
  filters: AuditQuery,
  since: string | undefined,
  own: OwnQueries,
): Promise<AuditRecord[]> {
  const out: AuditRecord[] = [];
  // Each page starts after the last one's cursor: records written meanwhile do not shift it, as they
  // shift offset pages (a server without cursors is paged by offset).
  for (let offset = 0, before: string | undefined; ; ) {
    const page = await client.queryAudit({ ...filters, since, limit: PAGE, offset, before }, own.next());
    out.push(...page.records);
    if (!page.hasMore) return own.others(out).reverse();
    if (page.next) before = page.next;
    else offset += PAGE;
  }
}

/** audit tail [--follow], audit verify. */
export function registerAuditCommands(program: Command): void {
  const audit = examples(
    program.command('audit').description('Read the audit trail (Human callers; needs a queryable audit sink)'),
    'svc audit tail --follow',
  );
  examples(
    audit
      .command('tail')
      .description('Print the latest audit records, oldest first; --follow keeps printing new ones')
      .option('-n, --lines <n>', 'how many of the latest records to print first', positiveInt('--lines'), 20)
      .option('--actor <subject>', 'only this principal')
      .option('--key <resource>', 'only this resource, for example a key id')
      .option('--op <operation>', 'only this operation, for example Sign')
      .option(
        '--prompt <id>',
        'only the calls that named this prompt id (their X-Svc-Prompt-Id; the ' +
          "global --prompt-id names the prompt of this run's own calls)",
      )
      .option('--since <iso>', 'start here instead of at the latest --lines records')
      .option('-f, --follow', 'poll for new records until interrupted (Ctrl-C)')
      .option('--interval <seconds>', 'polling interval with --follow', positiveInt('--interval'), 2)
      .action(
        async (
          opts: {
            lines: number;
            actor?: string;
            key?: string;
            op?: string;
            prompt?: string;
            since?: string;
            follow?: boolean;
            interval: number;
          },
          cmd: Command,
        ) => {
          const { client, globals } = invocation(cmd);
          const filters: AuditQuery = { actor: opts.actor, key: opts.key, op: opts.op, promptId: opts.prompt };
          const own = new OwnQueries();
          const first =
            opts.since !== undefined
              ? await recordsSince(client, filters, opts.since, own)
              : own.others((await client.queryAudit({ ...filters, limit: opts.lines }, own.next())).records).reverse();
          const out = listPrinter(globals, RECORDS);
          for (const r of first) out.add(r);
          out.flush();
          if (!opts.follow) return;

          // Records share timestamps, so the poll asks from the last one seen (inclusive) and skips what it printed.
          // With nothing seen yet it asks for everything: this machine's clock is not the service's.
          let cursor = first.at(-1)?.occurredAt ?? opts.since;
          let printedAtCursor = new Set(first.filter((r) => r.occurredAt === cursor).map(identity));
          for (;;) {
            await new Promise((resolve) => setTimeout(resolve, opts.interval * 1000));
            for (const r of await recordsSince(client, filters, cursor, own)) {
              if (r.occurredAt === cursor && printedAtCursor.has(identity(r))) continue;
              out.add(r);
              if (r.occurredAt !== cursor) {
                cursor = r.occurredAt;
                printedAtCursor = new Set();
              }
              printedAtCursor.add(identity(r));
            }
            out.flush();
          }
        },
      ),
    'svc audit tail -n 50 --op Sign',
    'svc audit tail --prompt 7f3e2a --since 2026-01-01',
    'svc audit tail --follow --actor agent-2f0c9c1e-5f6e-4a57-9a43-0e3b1c7f2d11',
  );
  examples(
    audit
      .command('verify')
      .description(
        'Recompute the per-node hash chains of the audit trail; exit 0 when ' +
          'intact, 3 when a row was edited, removed or inserted, or a chain is ' +
          'unknown or cut short',
      )
      .option('--node <id>', "only this node's chain")
      .option('--since <iso>', 'start here (the first row checked anchors the chain)')
      .option('--until <iso>', 'stop before here')
      .option('--full', "check every row again, not only those after the node's last verification")
      .action(async (opts: { node?: string; since?: string; until?: string; full?: boolean }, cmd: Command) => {
        const { client, globals } = invocation(cmd);
        const report = await client.verifyAudit({
          node: opts.node,
          since: opts.since,
          until: opts.until,
          ...(opts.full ? { full: 'true' as const } : {}),
        });
        const text = report.valid
          ? `valid: ${report.checked} ${opts.full || opts.since || opts.until ? '' : 'new '}rows on ${report.nodes.length} node(s) (${report.nodes.join(', ') || 'none'})`
          : `BROKEN at ${report.firstBroken!.id} on node ${report.firstBroken!.node}: ${report.firstBroken!.reason} (${report.checked} rows checked)`;
        if (outputFormat(globals) === 'text') printLine(report, text, false);
        else print({ ...report }, globals, ['valid']);
        if (!report.valid) process.exitCode = EXIT.invalidSignature;
      }),
    'svc audit verify',
    'svc audit verify --full',
    'svc audit verify --node kms-1:8080 --since 2026-11-01T00:00:00Z',
  );
}
