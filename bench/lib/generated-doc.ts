import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const MARKED = /<!-- generated:start[\s\S]*<!-- generated:end -->/;

/** A new benchmark document: its title and an empty generated block. */
export const titledDoc = (title: string) => `# ${title}\n\n<!-- generated:start -->\n<!-- generated:end -->\n`;

/**
 * Puts `generated` (a block from `<!-- generated:start` to `<!-- generated:end -->`) in place of the generated
 * block of the document at `docPath`, keeping the text around it; a document without one (or no file) starts as
 * `intro`. Prints the block and where it went.
 */
export function writeGeneratedBlock(docPath: string, generated: string, intro: string): void {
  const old = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '';
  writeFileSync(
    docPath,
    (MARKED.test(old) ? old : intro).replace(MARKED, () => generated),
  );
  process.stderr.write(`${generated}\n${docPath} written\n`);
}
