import { SvcError } from '../errors.ts';
import { requireCallerText } from '../text/caller-text.ts';

/** Longest model name or prompt id a caller may name, in characters. */
export const PROMPT_FIELD_MAX_CHARS = 128;

/** The audit context keys a caller's model and prompt id are recorded under, whatever the principal's kind. */
export const MODEL_CONTEXT_KEY = 'agent.model';
export const PROMPT_ID_CONTEXT_KEY = 'agent.promptId';

/** The HTTP headers that carry them on REST and on /mcp. */
export const MODEL_HEADER = 'X-Svc-Model';
export const PROMPT_ID_HEADER = 'X-Svc-Prompt-Id';

/**
 * A caller-named value (model or prompt id) as the audit stores it: absent or empty is none; longer than
 * 128 characters or holding a character no caller-chosen text may hold (kernel/text) is InvalidField naming where it
 * came from (`field`:
 * the header or `_meta` field), so the caller sees which of its values was refused.
 */
export function promptField(value: string | undefined, field: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  // Code points never outnumber UTF-16 units: only a long string needs counting.
  if (value.length > PROMPT_FIELD_MAX_CHARS && [...value].length > PROMPT_FIELD_MAX_CHARS)
    throw new SvcError('InvalidField', `${field} must be at most ${PROMPT_FIELD_MAX_CHARS} characters`);
  requireCallerText(value, field);
  return value;
}

/**
 * The audit context entries for a call's model and prompt id, each checked by promptField under its own
 * field name; a refused value throws. A door passes the values it read (headers, or an MCP call's `_meta`).
 */
export function promptContext(
  model: { value: string | undefined; field: string },
  promptId: { value: string | undefined; field: string },
): Record<string, string> {
  const context: Record<string, string> = {};
  const m = promptField(model.value, model.field);
  const p = promptField(promptId.value, promptId.field);
  if (m !== undefined) context[MODEL_CONTEXT_KEY] = m;
  if (p !== undefined) context[PROMPT_ID_CONTEXT_KEY] = p;
  return context;
}
