import type { AuditRecord } from '../model/index.ts';
import { createPortRef } from './port-ref.ts';

/**
 * The kernel's audit pipeline as plugins see it: write a record (primary sink first, fail closed) and
 * listen to every record written (detectors). Actors below the audit layer (the auto-responder) write
 * through `record` as svc-system.
 */
export interface AuditPipelinePort {
  record(record: AuditRecord): Promise<void>;
  onRecord(listener: (record: AuditRecord) => void): void;
}

export const auditPipelinePort = createPortRef<AuditPipelinePort>('auditPipeline');
