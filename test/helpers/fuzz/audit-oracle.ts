import type { Pool } from 'undici';
import type { Cast } from './cast.ts';
import type { FuzzResult } from './run.ts';
import { send } from './transport.ts';

/** A call whose audit trail does not say what its answer said. */
export interface AuditMismatch {
  route: string;
  kind: string;
  status: number;
  error: string;
  records: Array<{ operation: string; outcome: string }>;
}

/** Routes of the HTTP door that are no operation: they write no audit record. */
const NOT_OPERATIONS = /^(\w+ \/(readyz|healthz|metrics|docs)|\w+ \(unknown\))/;

/**
 * Every answered call, against the audit trail read back through `GET /v1/audit` (paged by cursor):
 * a call that reached the operation pipeline has exactly one record, under its X-Request-Id, whose
 * outcome is its answer (Success for 2xx, else the answer's error code; a verify answered 200 may say
 * InvalidSignature, its record of `valid: false`). Calls refused before the pipeline have none: no valid
 * credential (401 Unauthorized: no actor to record), a target or headers the HTTP door refused (414,
 * 431), and routes that are no operation.
 */
export async function auditMismatches(
  pool: Pool,
  cast: Cast,
  r: FuzzResult,
): Promise<{ checked: number; mismatches: AuditMismatch[] }> {
  const byCorrelation = new Map<string, Array<{ operation: string; outcome: string }>>();
  let before = '';
  for (;;) {
    const page = await send(pool, {
      route: 'GET /v1/audit',
      kind: 'oracle',
      method: 'GET',
      path: `/v1/audit?limit=1000${before ? `&before=${encodeURIComponent(before)}` : ''}`,
      headers: cast.auth('keeper'),
    });
    if (page.status !== 200) throw new Error(`reading the audit trail back: ${page.status} ${page.text.slice(0, 300)}`);
    for (const rec of page.json.records)
      byCorrelation.set(rec.correlationId, [
        ...(byCorrelation.get(rec.correlationId) ?? []),
        { operation: rec.operation, outcome: rec.outcome },
      ]);
    if (!page.json.hasMore) break;
    before = page.json.next;
  }
  const mismatches: AuditMismatch[] = [];
  let checked = 0;
  for (let i = 0; i < r.statuses.length; i++) {
    const [route, status, error] = [r.routes[i]!, r.statuses[i]!, r.errors[i]!];
    const records = byCorrelation.get(r.requestIds[i]!) ?? [];
    const unrecorded =
      NOT_OPERATIONS.test(route) || (status === 401 && error === 'Unauthorized') || status === 414 || status === 431;
    const outcome = status < 300 ? 'Success' : error;
    const fits = unrecorded
      ? records.length === 0
      : records.length === 1 &&
        (records[0]!.outcome === outcome ||
          (route === 'POST /v1/keys/:id/verify' && status === 200 && records[0]!.outcome === 'InvalidSignature'));
    if (!unrecorded) checked++;
    if (!fits) mismatches.push({ route, kind: r.kinds[i]!, status, error, records });
  }
  return { checked, mismatches };
}
