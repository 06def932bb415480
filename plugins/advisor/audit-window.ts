import type { AuditRecord } from '../../kernel/model/index.ts';
import type { AuditSink } from '../../kernel/ports/audit-sink.ts';

/** Rows one advisor call reads at most (SPEC's scan row cap). */
export const ROW_CAP = 50_000;
const PAGE = 1000;

/** Lets the event loop answer waiting requests before the next page is read and handled. */
export const yieldToRequests = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The audit records of a window, newest first, read page by page from the primary sink, stopping at
 * `cap` rows: `truncated` says the window held more. Each page seeks from the previous one's cursor (a
 * sink without cursors is paged by offset), so every page costs the same however deep the window goes.
 */
export async function readWindow(sink: AuditSink, filter: { since: string; until?: string; actor?: string }, cap = ROW_CAP): Promise<{ records: AuditRecord[]; truncated: boolean }> {
  const records: AuditRecord[] = [];
  let before: string | undefined;
  let offset = 0;
  while (records.length < cap) {
    const page = await sink.query!({ ...filter, limit: Math.min(PAGE, cap - records.length), offset, before, background: true });
    for (const r of page.records) records.push(r);
    if (!page.hasMore) return { records, truncated: false };
    if (page.next) before = page.next;
    else offset += page.records.length;
    await yieldToRequests();
  }
  return { records, truncated: true };
}

/** A finding the auto-responder wrote (outcome `AnomalyAlert(detector=D, severity=S, ...)`), or undefined. */
export function anomalyOf(r: AuditRecord): { detector: string; severity: string; actor: string; resource: string; message: string; occurredAt: string } | undefined {
  const m = /^AnomalyAlert\(detector=([^,]+), severity=([^,]+),/.exec(r.outcome);
  if (!m) return undefined;
  return { detector: m[1]!, severity: m[2]!, actor: r.context['auto.response.actor'] ?? '', resource: r.resource, message: r.context['auto.response.detectorMsg'] ?? '', occurredAt: r.occurredAt };
}

/** Outcomes that count as denials: the caller was not let through (a missing key is not a denial). */
export const DENIED = new Set(['Unauthorized', 'PermissionDenied', 'StepUpRequired', 'TooManyRequests']);

export const riskOf = (r: AuditRecord): number | undefined => (r.context['risk.score'] === undefined ? undefined : Number(r.context['risk.score']));
