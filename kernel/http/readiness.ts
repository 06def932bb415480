import { Type } from '@sinclair/typebox';
import type { Logger } from '../ports/logger.ts';

/**
 * One readiness check as a probe reports it. `state` is what anyone may read: a fixed word chosen by
 * the code ('ok', 'unavailable', 'pending' ...), never text taken from an error. `detail` is the
 * operator's explanation (an error message, which may name a host, a port, a database or a statement):
 * it goes to the log, and to authenticated Humans only.
 */
export interface ReadinessCheck {
  ok: boolean;
  state?: string;
  detail?: string;
}

export type ReadinessChecks = Record<string, ReadinessCheck>;

/** A check as answered: its state always, its detail only for a caller allowed to read it. */
export interface AnsweredCheck {
  ok: boolean;
  state: string;
  detail?: string;
}

export const ReadinessSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('unready')]),
    checks: Type.Record(
      Type.String(),
      Type.Object({
        ok: Type.Boolean(),
        state: Type.String({ description: "A fixed word: 'ok', 'unavailable', or a check's own (such as 'pending')" }),
        detail: Type.Optional(
          Type.String({
            description: 'Why, for an authenticated Human only; anonymous callers find it in the service log',
          }),
        ),
      }),
    ),
  },
  { title: 'Readiness' },
);

const stateOf = (check: ReadinessCheck): string => check.state ?? (check.ok ? 'ok' : 'unavailable');

/**
 * Turns the probes' checks into the /readyz answer, and logs each check's detail when it changes
 * (a load balancer polling every few seconds must not fill the log with the same line).
 */
export class ReadinessReport {
  // A Map: check names come from configuration (sink names), never looked up on a plain object.
  private readonly logged = new Map<string, string>();

  constructor(private readonly logger: Logger) {}

  answer(
    checks: ReadinessChecks,
    withDetails: boolean,
  ): { ready: boolean; body: { status: 'ready' | 'unready'; checks: Record<string, AnsweredCheck> } } {
    const answered: Record<string, AnsweredCheck> = Object.create(null);
    let ready = true;
    for (const [name, check] of Object.entries(checks)) {
      ready &&= check.ok;
      this.log(name, check);
      answered[name] =
        withDetails && check.detail !== undefined
          ? { ok: check.ok, state: stateOf(check), detail: check.detail }
          : { ok: check.ok, state: stateOf(check) };
    }
    return { ready, body: { status: ready ? 'ready' : 'unready', checks: answered } };
  }

  private log(name: string, check: ReadinessCheck): void {
    const line = `${check.ok}|${stateOf(check)}|${check.detail ?? ''}`;
    if (this.logged.get(name) === line) return;
    const first = !this.logged.has(name);
    this.logged.set(name, line);
    if (check.ok && first) return; // a healthy check seen for the first time is not news
    const fields = {
      check: name,
      state: stateOf(check),
      ...(check.detail !== undefined ? { detail: check.detail } : {}),
    };
    if (check.ok) this.logger.info('readiness check passes', fields);
    else this.logger.warn('readiness check fails', fields);
  }
}
