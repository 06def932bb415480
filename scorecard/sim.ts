import type { Answer } from './client.ts';

/** The scorecard's view of the service under attack: where it is, its secret and clock, and an administrator. */
export interface Sim {
  base: string;
  secret: string;
  clock: { t: number };
  /** A Human token (with a jti) for `sub` in `groups`. */
  human(sub: string, groups: string[]): Promise<string>;
  adminCall(method: string, path: string, body?: unknown): Promise<Answer>;
}
