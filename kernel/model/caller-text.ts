/**
 * Characters no caller-chosen text may hold (key names, agent labels and purposes, reasons, aliases,
 * tags, model and prompt ids, KMIP subjects): C0 and C1 controls and DEL (Cc), line and paragraph
 * separators (Zl, Zp), and the invisible format characters (Cf), which are the bidirectional controls
 * (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C) and the zero-width ones (U+200B..U+200D,
 * U+2060, U+FEFF). Each can split one log or audit line in two, reorder what a reader sees, or make
 * one name look like another (`zwsp\u200bsvc-system`). Part of the model: the schemas (and so the
 * SDK's types) name the format, the kernel's validator enforces it.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** What the refusal says: the same sentence wherever the text came from. */
export const CALLER_TEXT_RULE =
  'must not contain control, line or paragraph separator, bidirectional or zero-width characters';

/** The JSON Schema format of fields that hold caller-chosen text (schemas/caller-text.ts). */
export const CALLER_TEXT_FORMAT = 'caller-text';

// Printable ASCII and the space hold none of them: the common case, tested without Unicode properties.
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export function isCallerText(value: string): boolean {
  return PRINTABLE_ASCII.test(value) || !UNSAFE.test(value);
}
