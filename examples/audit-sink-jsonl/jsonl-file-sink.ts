import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { AuditEvent, AuditFanoutSink } from '../../kernel/index.ts';

/**
 * An example third-party secondary sink: appends each canonical audit event as one JSON line to a file, for a
 * log shipper to tail. The kernel's fan-out gives it a bounded queue, retries and a dead-letter file.
 */
export class JsonlFileSink implements AuditFanoutSink {
  readonly name = 'jsonl-file';

  constructor(private readonly file: string) {}

  async start(): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
  }

  async deliver(event: AuditEvent): Promise<void> {
    await appendFile(this.file, `${JSON.stringify(event)}\n`);
  }
}
