/** A comma-separated setting as its entries, blanks dropped (lists of KEKs, ARNs and labels). */
export const commaList = (text: string): string[] =>
  text
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
