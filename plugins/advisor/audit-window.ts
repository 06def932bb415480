import type { AuditRecord, AuditSink } from '../../kernel/index.ts';

/** Rows one advisor call reads at most, so a scan over a long window stays bounded in time and memory. */
export const ROW_CAP = 50_000;
const PAGE = 1000;

/** Lets the event loop answer waiting requests before the next page is read and handled. */
export const yieldToRequests = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

type WindowFilter = { since: string; until?: string; actor?: string };

/**
 * Hands the audit records of a window to `onPage`, newest first, a page at a time as the primary sink
 * answers, stopping at `cap` rows: `truncated` says the window held more. Each page seeks from the
 * previous one's cursor (a sink without cursors is paged by offset), so every page costs the same however
 * deep the window goes, and waiting requests run between pages, so work done per page never adds up to
 * one long stall.
 */
export async function eachWindowPage(
  sink: AuditSink,
  filter: WindowFilter,
  cap: number,
  onPage: (records: AuditRecord[]) => void,
): Promise<{ read: number; truncated: boolean }> {
  let read = 0;
  let before: string | undefined;
  let offset = 0;
  while (read < cap) {
    const page = await sink.query!({ ...filter, limit: Math.min(PAGE, cap - read), offset, before, background: true });
    read += page.records.length;
    onPage(page.records);
    if (!page.hasMore) return { read, truncated: false };
    if (page.next) before = page.next;
    else offset += page.records.length;
    await yieldToRequests();
  }
  return { read, truncated: true };
}

/** The audit records of a window, newest first, at most `cap` of them (see eachWindowPage). */
export async function readWindow(
  sink: AuditSink,
  filter: WindowFilter,
  cap = ROW_CAP,
): Promise<{ records: AuditRecord[]; truncated: boolean }> {
  const records: AuditRecord[] = [];
  const { truncated } = await eachWindowPage(sink, filter, cap, (page) => {
    for (const r of page) records.push(r);
  });
  return { records, truncated };
}

/** A finding the auto-responder wrote (outcome `AnomalyAlert(detector=D, severity=S, ...)`), or undefined. */
export function anomalyOf(
  r: AuditRecord,
):
  | { detector: string; severity: string; actor: string; resource: string; message: string; occurredAt: string }
  | undefined {
  const m = /^AnomalyAlert\(detector=([^,]+), severity=([^,]+),/.exec(r.outcome);
  if (!m) return undefined;
  return {
    detector: m[1]!,
    severity: m[2]!,
    actor: r.context['auto.response.actor'] ?? '',
    resource: r.resource,
    message: r.context['auto.response.detectorMsg'] ?? '',
    occurredAt: r.occurredAt,
  };
}

/** Outcomes that count as denials: the caller was not let through (a missing key is not a denial). */
export const DENIED = new Set(['Unauthorized', 'PermissionDenied', 'StepUpRequired', 'TooManyRequests']);

export const riskOf = (r: AuditRecord): number | undefined =>
  r.context['risk.score'] === undefined ? undefined : Number(r.context['risk.score']);
