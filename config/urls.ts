import { outboundUrlProblem } from '../kernel/index.ts';

/**
 * The loader's check of a setting of format `outbound-url` (kernel/settings/settings.ts): empty (not
 * used), or a URL `outboundUrlProblem` accepts, so a bad value fails the boot with the setting's key and
 * variable, whichever plugin declares it.
 */
export const httpsUrl = Object.defineProperty(
  (value: unknown): void => {
    if (value === '') return;
    if (typeof value !== 'string') throw new Error('must be a URL string');
    const reason = outboundUrlProblem(value);
    if (reason) throw new Error(reason);
  },
  'name',
  { value: 'https URL' },
);
