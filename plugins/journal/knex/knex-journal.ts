import knexFactory, { type Knex } from 'knex';
import type { KnexSettings } from '../../sql-support/knex-settings.ts';
import type { KeyEvent, StoredEvent } from '../../../kernel/model/index.ts';
import { JournalConflict, type KeyJournal } from '../../../kernel/ports/journal.ts';
import { journalMigrations } from './migrations.ts';
import { isUniqueViolation } from '../../sql-support/unique-violation.ts';

/**
 * The SQL journal shared by every relational backend: events in svc_key_events with a primary key on
 * (key_id, seq), so two writers of the same key cannot both win; material in svc_key_material.
 */
export class KnexJournal implements KeyJournal {
  private db: Knex | undefined;

  constructor(private readonly settings: KnexSettings) {}

  async start(): Promise<void> {
    await this.settings.prepare?.();
    this.db = knexFactory(this.settings.config);
    await this.db.migrate.latest({ migrationSource: journalMigrations, tableName: 'svc_journal_migrations' });
  }

  async stop(): Promise<void> {
    const db = this.db;
    this.db = undefined;
    await db?.destroy();
  }

  async probe(): Promise<void> {
    await this.knex().raw('select 1');
  }

  async append(keyId: string, expectedSeq: number, events: KeyEvent[]): Promise<void> {
    const rows = events.map((event, i) => ({
      key_id: keyId,
      seq: expectedSeq + 1 + i,
      type: event.type,
      payload: JSON.stringify(event),
      occurred_at: event.at,
    }));
    try {
      await this.knex().transaction(async (trx) => {
        await trx('svc_key_events').insert(rows);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new JournalConflict(keyId, expectedSeq + 1);
      throw err;
    }
  }

  async load(keyId: string): Promise<StoredEvent[]> {
    const rows = await this.knex()('svc_key_events').where({ key_id: keyId }).orderBy('seq', 'asc').select('seq', 'payload');
    return rows.map((r: { seq: number; payload: string }) => ({ keyId, seq: Number(r.seq), event: JSON.parse(r.payload) as KeyEvent }));
  }

  async keyIds(): Promise<string[]> {
    const rows = await this.knex()('svc_key_events').where({ seq: 1 }).orderBy('occurred_at', 'asc').select('key_id');
    return rows.map((r: { key_id: string }) => r.key_id);
  }

  async putMaterial(keyId: string, materialId: string, wrapped: Buffer): Promise<void> {
    await this.knex()('svc_key_material').insert({ key_id: keyId, material_id: materialId, wrapped });
  }

  async getMaterial(keyId: string, materialId: string): Promise<Buffer | undefined> {
    const row = await this.knex()('svc_key_material').where({ key_id: keyId, material_id: materialId }).first('wrapped');
    return row ? Buffer.from(row.wrapped) : undefined;
  }

  async eraseMaterial(keyId: string): Promise<void> {
    await this.knex()('svc_key_material').where({ key_id: keyId }).delete();
  }

  private knex(): Knex {
    if (!this.db) throw new Error('journal is not started');
    return this.db;
  }
}
