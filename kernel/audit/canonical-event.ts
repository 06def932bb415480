import { createHash } from 'node:crypto';
import type { AuditEvent } from './audit-event-schema.ts';
import type { AuditRecord } from '../model/index.ts';

export type { AuditEvent };

/** The prevHash of a node's first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** The canonical event a record becomes when node `node` writes it. */
export function toAuditEvent(record: AuditRecord, node: string): AuditEvent {
  return {
    schemaVersion: 1,
    id: record.id,
    occurredAt: record.occurredAt,
    node,
    principal: { subject: record.principal.subject, kind: record.principal.kind },
    operation: record.operation,
    resource: record.resource,
    outcome: record.outcome,
    context: record.context,
    correlationId: record.correlationId,
  };
}

const texts = new WeakMap<AuditEvent, string>();

/**
 * The event as the secondary sinks send it (JSON.stringify, fields in the order toAuditEvent builds them),
 * made once per event however many sinks send it: each sink's serialising it again cost the node's request
 * loop a few microseconds per event per sink.
 */
export function eventJson(event: AuditEvent): string {
  let text = texts.get(event);
  if (text === undefined) {
    text = JSON.stringify(event);
    texts.set(event, text);
  }
  return text;
}

/** JSON with object keys sorted at every depth: one text per event, whatever order its fields were built in. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

const str = JSON.stringify;

/**
 * canonicalJson of an event without `hash`, written out field by field in sorted key order: the same
 * text (a test holds them equal), at a fraction of the cost, since verification hashes every row.
 */
export function canonicalEventJson(e: AuditEvent & { prevHash: string }): string {
  const context = Object.keys(e.context)
    .sort()
    .map((k) => `${str(k)}:${str(e.context[k])}`)
    .join(',');
  return `{"context":{${context}},"correlationId":${str(e.correlationId)},"id":${str(e.id)},"node":${str(e.node)},"occurredAt":${str(e.occurredAt)},"operation":${str(e.operation)},"outcome":${str(e.outcome)},"prevHash":${str(e.prevHash)},"principal":{"kind":${str(e.principal.kind)},"subject":${str(e.principal.subject)}},"resource":${str(e.resource)},"schemaVersion":${e.schemaVersion}}`;
}

/** hex SHA-256 of prevHash followed by the canonical JSON of the event without `hash` (prevHash included). */
export function chainHash(event: AuditEvent & { prevHash: string }): string {
  return createHash('sha256').update(event.prevHash).update(canonicalEventJson(event)).digest('hex');
}

/**
 * An event from the text eventJson made of it (posted to the fan-out thread): eventJson of the result
 * answers that same text, so every sink sends the bytes the request loop wrote.
 */
export function parseEventJson(text: string): AuditEvent {
  const event = JSON.parse(text) as AuditEvent;
  texts.set(event, text);
  return event;
}
