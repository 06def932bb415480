import { Type, type StringOptions } from '@sinclair/typebox';
import { CALLER_TEXT_FORMAT } from '../kernel/model/caller-text.ts';

/**
 * A string field whose text the caller chooses and people later read (a key name, a label, a reason):
 * the validator refuses control, separator, bidirectional and zero-width characters in it (400
 * InvalidField), the same check wherever such text enters.
 */
export const CallerText = (options: StringOptions = {}) =>
  Type.String({
    ...options,
    format: CALLER_TEXT_FORMAT,
    description: `${options.description ? `${options.description}; ` : ''}no control, separator, bidirectional or zero-width characters`,
  });
