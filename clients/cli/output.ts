import { UsageError } from './exit-codes.ts';

/**
 * `-o FORMAT`: json (the API's field names, as --json), table (aligned columns under a header), value (bare values, one
 * a line).
 */
export const OUTPUT_FORMATS = ['json', 'table', 'value'] as const;
export type OutputFormat = 'text' | (typeof OUTPUT_FORMATS)[number];

/** The global flags that choose the output; a bare boolean is the older `--json` switch. */
export type OutputFlags = { json?: boolean; output?: string } | boolean | undefined;

/** The format the flags ask for; `text` (the readable default) when none. */
export function outputFormat(flags: OutputFlags): OutputFormat {
  if (typeof flags !== 'object') return flags ? 'json' : 'text';
  if (flags.output === undefined) return flags.json ? 'json' : 'text';
  if (!(OUTPUT_FORMATS as readonly string[]).includes(flags.output))
    throw new UsageError(`-o takes ${OUTPUT_FORMATS.join(', ')}; got "${flags.output}"`);
  if (flags.json && flags.output !== 'json')
    throw new UsageError(`--json is -o json: give one of --json and -o ${flags.output}`);
  return flags.output as OutputFormat;
}

/** One cell or value line: text as is, a list of plain values joined by commas, anything else compact JSON. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object')) return value.join(',');
  return JSON.stringify(value);
}

/** Columns padded to their widest cell, two spaces apart, the last one not padded. */
export function alignedRows(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** Nested objects spread into columns of their own (`spec.name`, `spec.algorithm`); lists stay one cell. */
function flattened(entries: Array<[string, unknown]>, prefix = ''): Array<[string, unknown]> {
  return entries.flatMap(
    ([k, v]): Array<[string, unknown]> =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? flattened(
            Object.entries(v).filter(([, x]) => x !== undefined),
            `${prefix}${k}.`,
          )
        : [[`${prefix}${k}`, v]],
  );
}

/**
 * How a command's result is shown: JSON (-o json, --json) with the API's field names; a one-row table
 * under a header of field names (-o table); the values of `valueFields` one a line (-o value; every
 * field's when the command names none), for `KEY=$(svc keys create ... -o value)`; aligned
 * "name  value" lines otherwise.
 */
export function print(result: Record<string, unknown>, flags: OutputFlags, valueFields?: string[]): void {
  const format = outputFormat(flags);
  if (format === 'json') {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const entries = Object.entries(result).filter(([, v]) => v !== undefined);
  if (format === 'value') {
    const chosen = valueFields
      ? valueFields.filter((f) => result[f] !== undefined).map((f) => result[f])
      : entries.map(([, v]) => v);
    for (const v of chosen) process.stdout.write(`${cell(v)}\n`);
    return;
  }
  if (format === 'table') {
    const columns = flattened(entries);
    for (const line of alignedRows([columns.map(([k]) => k.toUpperCase()), columns.map(([, v]) => cell(v))]))
      process.stdout.write(`${line}\n`);
    return;
  }
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  for (const [k, v] of entries)
    process.stdout.write(`${k.padEnd(width)}  ${typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`);
}

/** For lines of a list (audit records, keys): one JSON object per line with --json, else the text. */
export function printLine(value: unknown, text: string, json: boolean | undefined): void {
  process.stdout.write(`${json ? JSON.stringify(value) : text}\n`);
}

/** A list's shape: its table columns (header and cell), the value `-o value` prints, the readable line. */
export interface ListShape<T> {
  columns: Array<[header: string, cell: (row: T) => unknown]>;
  value: (row: T) => unknown;
  text: (row: T) => string;
}

/**
 * Prints the rows of a list as they come: a JSON object a line (-o json, --json), the value a line (-o
 * value), the readable line (default), or, for -o table, aligned columns under one header, written at
 * each `flush()` (a list is flushed once at its end; `audit tail --follow` at every poll, so columns
 * are aligned within a batch).
 */
export function listPrinter<T>(flags: OutputFlags, shape: ListShape<T>) {
  const format = outputFormat(flags);
  let pending: string[][] = [];
  let headed = false;
  return {
    add(row: T): void {
      if (format === 'json') process.stdout.write(`${JSON.stringify(row)}\n`);
      else if (format === 'value') process.stdout.write(`${cell(shape.value(row))}\n`);
      else if (format === 'text') process.stdout.write(`${shape.text(row)}\n`);
      else pending.push(shape.columns.map(([, of]) => cell(of(row))));
    },
    flush(): void {
      if (format !== 'table' || (pending.length === 0 && headed)) return;
      const header = shape.columns.map(([name]) => name);
      const lines = alignedRows(headed ? pending : [header, ...pending]);
      for (const line of lines) process.stdout.write(`${line}\n`);
      headed = true;
      pending = [];
    },
  };
}
