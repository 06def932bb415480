import { SvcError } from '../errors.ts';
import { CALLER_TEXT_RULE, isCallerText } from '../model/caller-text.ts';

/** Throws 400 InvalidField naming `field` when `value` holds a character no caller-chosen text may hold. */
export function requireCallerText(value: string, field: string): void {
  if (!isCallerText(value)) throw new SvcError('InvalidField', `${field} ${CALLER_TEXT_RULE}`);
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
const SYSTEM_LENGTH = 'svc-system'.length;
const AGENT_ID_LENGTH = 'agent-'.length + 36;

/**
 * Why a subject from outside (a credential's, a certificate's CN) may not be used because it reads as
 * one the service reserves, or undefined. `svc-system` is the service's own actor; `agent-<uuid>` the
 * agents it issues, which authenticate only through the agent registry.
 */
export function reservedSubjectProblem(subject: string): string | undefined {
  // A printable ASCII subject is its own skeleton but for case: only the two reserved lengths can match.
  if (PRINTABLE_ASCII.test(subject) && subject.length !== SYSTEM_LENGTH && subject.length !== AGENT_ID_LENGTH)
    return undefined;
  const skeleton = subjectSkeleton(subject);
  if (skeleton === 'svc-system') return 'the subject svc-system is reserved for the service itself';
  if (AGENT_ID_SKELETON.test(skeleton))
    return "the subject has the form of the service's agent ids (agent-<uuid>), which only the service issues";
  return undefined;
}
