import { SvcError } from '../errors.ts';

/**
 * Characters no caller-chosen text may hold (key names, agent labels and purposes, reasons, aliases,
 * tags, model and prompt ids, KMIP subjects): C0 and C1 controls and DEL (Cc), line and paragraph
 * separators (Zl, Zp), and the invisible format characters (Cf), which are the bidirectional controls
 * (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F, U+061C) and the zero-width ones (U+200B..U+200D,
 * U+2060, U+FEFF). Each can split one log or audit line in two, reorder what a reader sees, or make
 * one name look like another (`zwsp\u200bsvc-system`).
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** What the refusal says: the same sentence wherever the text came from. */
export const CALLER_TEXT_RULE = 'must not contain control, line or paragraph separator, bidirectional or zero-width characters';

/** The ajv format name of schema fields that hold caller-chosen text (schemas/caller-text.ts). */
export const CALLER_TEXT_FORMAT = 'caller-text';

export function isCallerText(value: string): boolean {
  return !UNSAFE.test(value);
}

/** Throws 400 InvalidField naming `field` when `value` holds a character no caller-chosen text may hold. */
export function requireCallerText(value: string, field: string): void {
  if (UNSAFE.test(value)) throw new SvcError('InvalidField', `${field} ${CALLER_TEXT_RULE}`);
}

// Dashes a reader takes for a hyphen-minus (Unicode's Dash_Punctuation, plus the minus signs outside it).
const DASHES = /[\p{Pd}\u2212\u2796\uFE63\uFF0D]/gu;
const SPACES = /[\s\p{Z}\p{Cf}]/gu;
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/**
 * How a subject reads: NFKC (full-width and compatibility forms become plain letters), every dash a
 * hyphen-minus, no spaces or invisible characters, lower case. Two subjects that read alike have one
 * skeleton, so `SVC-SYSTEM`, `svc-system ` and `svc‐system` (U+2010) all read as `svc-system`.
 */
export function subjectSkeleton(subject: string): string {
  // Printable ASCII (nearly every subject) is its own NFKC form and has no dash but the hyphen-minus.
  if (PRINTABLE_ASCII.test(subject)) return subject.toLowerCase();
  return subject.normalize('NFKC').replace(DASHES, '-').replace(SPACES, '').toLowerCase();
}

const AGENT_ID_SKELETON = /^agent-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Why a subject from outside (a credential's, a certificate's CN) may not be used because it reads as
 * one the service reserves, or undefined. `svc-system` is the service's own actor; `agent-<uuid>` the
 * agents it issues, which authenticate only through the agent registry.
 */
export function reservedSubjectProblem(subject: string): string | undefined {
  const skeleton = subjectSkeleton(subject);
  if (skeleton === 'svc-system') return 'the subject svc-system is reserved for the service itself';
  if (AGENT_ID_SKELETON.test(skeleton)) return "the subject has the form of the service's agent ids (agent-<uuid>), which only the service issues";
  return undefined;
}
