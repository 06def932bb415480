import path from 'node:path';
import t from 'tap';
import { KnexJournal } from '../../plugins/journal/knex/knex-journal.ts';
import { sqliteKnexSettings } from '../../plugins/sql-support/sqlite-connection.ts';
import { journalContract } from '../../contracts/journal.ts';
import { tempDir } from '../helpers/service.ts';

const file = path.join(tempDir(), 'nested', 'journal.db');
const open = async () => {
  const j = new KnexJournal(sqliteKnexSettings(file));
  await j.start();
  return j;
};
journalContract(t, open, open);
