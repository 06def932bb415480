/** How a command's result is shown: JSON with --json (the API's own field names), aligned "name  value" lines otherwise. */
export function print(result: Record<string, unknown>, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const entries = Object.entries(result).filter(([, v]) => v !== undefined);
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  for (const [k, v] of entries) process.stdout.write(`${k.padEnd(width)}  ${typeof v === 'object' ? JSON.stringify(v) : String(v)}\n`);
}

/** For lines of a list (audit records, keys): one JSON object per line with --json, else the text. */
export function printLine(value: unknown, text: string, json: boolean | undefined): void {
  process.stdout.write(`${json ? JSON.stringify(value) : text}\n`);
}
