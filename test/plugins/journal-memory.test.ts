import t from 'tap';
import { MemoryJournal } from '../../plugins/journal/memory/memory-journal.ts';
import { journalContract } from '../../contracts/journal.ts';

journalContract(t, async () => new MemoryJournal());
