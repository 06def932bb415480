import t from 'tap';
import { SvcError } from '../../kernel/errors.ts';
import { parseTimestamp, timestampField } from '../../kernel/operations/timestamp-field.ts';

t.test('RFC 3339 date-times and plain dates are read exactly', async (t) => {
  const iso = (value: string) => new Date(parseTimestamp(value)!).toISOString();
  t.equal(iso('2026-01-31T12:00:00Z'), '2026-01-31T12:00:00.000Z');
  t.equal(iso('2026-01-31t12:00:00z'), '2026-01-31T12:00:00.000Z', 'lower-case T and Z');
  t.equal(iso('2026-01-31T13:00:00.5+01:00'), '2026-01-31T12:00:00.500Z', 'an offset and a fraction');
  t.equal(iso('2026-01-31T06:30:00.123456789-05:30'), '2026-01-31T12:00:00.123Z', 'nanoseconds cut to milliseconds');
  t.equal(iso('2024-02-29'), '2024-02-29T00:00:00.000Z', 'a plain date is midnight UTC; a leap day');
  t.equal(iso('0050-06-01T00:00:00Z'), '0050-06-01T00:00:00.000Z', 'a year below 100 is not read as 19xx');
});

t.test('what Date.parse would guess at is refused', async (t) => {
  for (const value of [
    ' 10',
    '-5',
    '0',
    '1',
    '2026',
    '2026-02-30',
    '2025-02-29',
    '2026-13-01',
    '2026-01-01T24:00:00Z',
    '2026-01-01T10:00Z',
    '2026-01-01T10:00:00',
    '2026-01-01 10:00:00Z',
    '2026-01-01T10:00:60Z',
    '2026-01-01T10:00:00+24:00',
    'Fri, 27 Nov 2026 10:00:00 GMT',
    '2026-01-01T10:00:00Z ',
    'abc',
  ]) {
    t.equal(parseTimestamp(value), undefined, JSON.stringify(value));
  }
});

t.test('timestampField: undefined for nothing, ISO in UTC, else InvalidField naming the field', async (t) => {
  t.equal(timestampField(undefined, 'since'), undefined);
  t.equal(timestampField('', 'since'), undefined);
  t.equal(timestampField('2026-01-31T13:00:00+01:00', 'since'), '2026-01-31T12:00:00.000Z');
  t.throws(
    () => timestampField(' 10', 'until'),
    new SvcError(
      'InvalidField',
      'until must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z (or a ' +
        'date, 2026-01-31, read as midnight UTC), not " 10"',
    ),
  );
});
