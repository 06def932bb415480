import { UNKNOWN_EXPIRY_SECONDS } from '../../kernel/auth/agent-claims.ts';

/** The shortest and longest life of a token `issue-token` mints. */
export const MIN_HUMAN_TOKEN_TTL_SECONDS = 60;
/**
 * A day: a revocation made without the token's expiry is kept that long, so even such a revocation
 * covers a minted token's whole life, and a leaked one is useless by the next day.
 */
export const MAX_HUMAN_TOKEN_TTL_SECONDS = UNKNOWN_EXPIRY_SECONDS;
export const DEFAULT_HUMAN_TOKEN_TTL_SECONDS = 3_600;

/** The longest subject an audit record keeps whole. */
const MAX_SUBJECT_LENGTH = 256;
/** Reserved for the service's own actions; a token naming it is refused at every use. */
const SYSTEM_SUBJECT = 'svc-system';

export interface HumanTokenRequest {
  subject: string;
  groups: string[];
  ttlSeconds: number;
}

const CONTROL = /[\u0000-\u001f\u007f]/;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `90s`, `30m`, `8h`, `1d`, or bare seconds, as a number of seconds; throws with a sentence otherwise. */
export function parseTtl(text: string): number {
  const m = /^(\d{1,6})([smhd]?)$/.exec(text.trim());
  if (!m) throw new Error(`--ttl "${text}" is not a duration: a whole number with s, m, h or d (8h, 30m)`);
  const seconds = Number(m[1]) * UNIT_SECONDS[m[2] || 's']!;
  if (seconds < MIN_HUMAN_TOKEN_TTL_SECONDS || seconds > MAX_HUMAN_TOKEN_TTL_SECONDS) {
    throw new Error(
      `--ttl must be between 1m and 24h (a longer-lived token outlives what a revocation without its expiry covers); got ${text}`,
    );
  }
  return seconds;
}

/** The flags of `issue-token`, checked: a usage error names the flag. */
export function humanTokenRequest(flags: { subject?: string; groups?: string; ttl?: string }): HumanTokenRequest {
  const subject = flags.subject?.trim() ?? '';
  if (!subject) throw new Error('issue-token needs --subject NAME');
  if (subject === SYSTEM_SUBJECT) throw new Error(`--subject ${SYSTEM_SUBJECT} is reserved for the service itself`);
  if (subject.length > MAX_SUBJECT_LENGTH) throw new Error(`--subject is longer than ${MAX_SUBJECT_LENGTH} characters`);
  if (CONTROL.test(subject)) throw new Error('--subject must not hold control characters');
  const groups = flags.groups === undefined ? [] : flags.groups.split(',').map((g) => g.trim());
  if (groups.some((g) => g === '' || CONTROL.test(g)))
    throw new Error('--groups is a comma list of group names, none blank (admins,ops)');
  return {
    subject,
    groups: [...new Set(groups)],
    ttlSeconds: flags.ttl === undefined ? DEFAULT_HUMAN_TOKEN_TTL_SECONDS : parseTtl(flags.ttl),
  };
}
