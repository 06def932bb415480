import {
  isSvcError,
  SvcError,
  MODEL_HEADER,
  PROMPT_ID_HEADER,
  promptContext,
  type OperationRunner,
  type Principal,
} from '../../../kernel/index.ts';
import { toolAnswer as answer, type ToolAnswer } from './answer-json.ts';
import type { ToolEntry } from './tools.ts';

export type { ToolAnswer } from './answer-json.ts';

/** What the HTTP request tells a tool call besides its arguments. */
export interface CallOrigin {
  principal: Principal;
  requestId: string;
  sourceIp: string | undefined;
  /** X-Svc-Model / X-Svc-Prompt-Id, already checked. */
  headerContext: Record<string, string>;
  /** The client's name/version from its initialize, when it sends it back (see client-session.ts). */
  client: string | undefined;
}

/** A refusal as the REST API words it; anything that is not a service error is the REST 500's message. */
export function toolError(err: unknown): ToolAnswer {
  const e = isSvcError(err)
    ? err
    : new SvcError('InternalError', 'internal error; the service log has details under this request id');
  return answer({ error: e.code, message: e.message }, true);
}

/** The call's `_meta` model and prompt id win over the request's headers: they name this one call. */
function callContext(meta: Record<string, unknown> | undefined, origin: CallOrigin): Record<string, string> {
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const fromMeta = promptContext(
    { value: text(meta?.['svc/model']), field: '_meta svc/model' },
    { value: text(meta?.['svc/promptId']), field: '_meta svc/promptId' },
  );
  const context: Record<string, string> = { ...origin.headerContext, ...fromMeta };
  if (origin.client !== undefined) context['mcp.client'] = origin.client;
  return context;
}

/** The operation's input from the tool's arguments: `keyId` is the input's `id` (the REST path's key). */
function inputOf(tool: ToolEntry, args: Record<string, unknown>): Record<string, unknown> {
  if (!tool.keyIdArgument) return { ...args };
  const { keyId, ...rest } = args;
  if ('id' in rest) throw new SvcError('BadRequest', `${tool.name} takes the key as keyId, not id`);
  return keyId === undefined ? rest : { ...rest, id: keyId };
}

/**
 * Runs one tool call through the operation pipeline, which authorizes, rates, validates, audits (door
 * mcp) and measures it exactly as a REST call of the same operation; the answer is the REST answer.
 */
export async function callTool(
  runner: OperationRunner,
  tool: ToolEntry,
  args: Record<string, unknown>,
  meta: Record<string, unknown> | undefined,
  origin: CallOrigin,
): Promise<ToolAnswer> {
  const caller = {
    principal: origin.principal,
    requestId: origin.requestId,
    door: 'mcp',
    context: origin.headerContext,
    sourceIp: origin.sourceIp,
  };
  let input: Record<string, unknown> | undefined;
  let rejected: SvcError | undefined;
  // Refused as REST refuses a bad header or body: by the pipeline, after authorizing, with its record.
  const refusal = (err: unknown) =>
    isSvcError(err) ? err : new SvcError('BadRequest', 'the tool call could not be read');
  try {
    input = inputOf(tool, args);
  } catch (err) {
    rejected = refusal(err);
  }
  try {
    caller.context = callContext(meta, origin);
  } catch (err) {
    rejected ??= refusal(err);
  }
  try {
    const result = await runner.run(tool.def.id, input, caller, rejected);
    return answer((result ?? {}) as Record<string, unknown>, false);
  } catch (err) {
    return toolError(err);
  }
}

/** The request's model and prompt headers as audit context; a refused value is 400 InvalidField for the request. */
export function headerContext(header: (name: string) => string | undefined): Record<string, string> {
  return promptContext(
    { value: header(MODEL_HEADER), field: MODEL_HEADER },
    { value: header(PROMPT_ID_HEADER), field: PROMPT_ID_HEADER },
  );
}
