import {
  child,
  children,
  dateTime,
  decodeTtlv,
  encodeTtlv,
  enumeration,
  integer,
  K,
  structure,
  text,
  type TtlvError,
  type TtlvItem,
} from './ttlv/index.ts';
import { bytes } from './ttlv/item.ts';

const T = K.Tag;

export interface ProtocolVersion {
  major: number;
  minor: number;
}

/** The protocol versions the door speaks, newest first (DiscoverVersions answers in this order). */
export const SUPPORTED_VERSIONS: ProtocolVersion[] = [
  { major: 2, minor: 0 },
  { major: 1, minor: 4 },
  { major: 1, minor: 3 },
  { major: 1, minor: 2 },
  { major: 1, minor: 1 },
  { major: 1, minor: 0 },
];

export const isSupported = (v: ProtocolVersion) =>
  SUPPORTED_VERSIONS.some((s) => s.major === v.major && s.minor === v.minor);

export interface BatchItemRequest {
  operation: number;
  batchItemId?: Buffer;
  payload: TtlvItem;
}

export interface RequestMessage {
  version: ProtocolVersion;
  /** Continue runs every item; Stop (the specification's default) and Undo stop after the first failure. */
  continueOnError: boolean;
  /** The header's Client Correlation Value (KMIP 1.4 and later), as sent. */
  correlation?: string;
  items: BatchItemRequest[];
}

interface BatchItemIds {
  operation?: number;
  batchItemId?: Buffer;
}

/**
 * A batch item's answer: its payload, or a failure, which cannot be made without its Result Reason and
 * Result Message (the REST message for refusals of the pipeline, the door's own for protocol refusals).
 */
export type BatchItemResponse = BatchItemIds &
  ({ payload: TtlvItem[] } | { failure: { reason: number; message: string } });

/** A message the door can read as bytes but not as a KMIP request: answered Invalid Message. */
export class InvalidMessage extends Error {
  override readonly name = 'InvalidMessage';

  constructor(
    message: string,
    readonly version?: ProtocolVersion,
  ) {
    super(message);
  }
}

/** At most this many batch items per message: each one is a call through the pipeline. */
export const MAX_BATCH_ITEMS = 100;

function versionOf(header: TtlvItem | undefined): ProtocolVersion | undefined {
  const pv = child(header, T.ProtocolVersion);
  const major = child(pv, T.ProtocolVersionMajor);
  const minor = child(pv, T.ProtocolVersionMinor);
  if (major?.type !== 'Integer' || minor?.type !== 'Integer') return undefined;
  return { major: major.value, minor: minor.value };
}

/** Reads one framed request. Throws TtlvError (bad TTLV) or InvalidMessage (TTLV, but not a KMIP request). */
export function parseRequest(frame: Buffer): RequestMessage {
  const root = decodeTtlv(frame);
  if (root.tag !== T.RequestMessage || root.type !== 'Structure')
    throw new InvalidMessage('the message is not a Request Message');
  const header = child(root, T.RequestHeader);
  const version = versionOf(header);
  if (!version) throw new InvalidMessage('the Request Header has no Protocol Version');
  const batchCount = child(header, T.BatchCount);
  const batchItems = children(root, T.BatchItem);
  if (batchCount?.type !== 'Integer' || batchCount.value !== batchItems.length)
    throw new InvalidMessage('Batch Count does not match the batch items', version);
  if (batchItems.length === 0) throw new InvalidMessage('the request has no batch item', version);
  if (batchItems.length > MAX_BATCH_ITEMS)
    throw new InvalidMessage(`a request holds at most ${MAX_BATCH_ITEMS} batch items`, version);
  const continuation = child(header, T.BatchErrorContinuationOption);
  const items = batchItems.map((item) => {
    const operation = child(item, T.Operation);
    if (operation?.type !== 'Enumeration') throw new InvalidMessage('a batch item has no Operation', version);
    const id = child(item, T.UniqueBatchItemId);
    const payload = child(item, T.RequestPayload);
    if (payload && payload.type !== 'Structure') throw new InvalidMessage('a Request Payload is a structure', version);
    return {
      operation: operation.value,
      ...(id?.type === 'ByteString' ? { batchItemId: id.value } : {}),
      payload: payload ?? structure(T.RequestPayload, []),
    };
  });
  const correlation = child(header, T.ClientCorrelationValue);
  return {
    version,
    continueOnError:
      continuation?.type === 'Enumeration' && continuation.value === K.BatchErrorContinuationOption.Continue,
    ...(correlation?.type === 'TextString' ? { correlation: correlation.value } : {}),
    items,
  };
}

/** The Protocol Version structure. */
export const protocolVersion = (v: ProtocolVersion): TtlvItem =>
  structure(T.ProtocolVersion, [integer(T.ProtocolVersionMajor, v.major), integer(T.ProtocolVersionMinor, v.minor)]);

/** Encodes a Response Message with one batch item per answer, in the request's protocol version. */
export function encodeResponse(version: ProtocolVersion, items: BatchItemResponse[], now: Date): Buffer {
  const header = structure(T.ResponseHeader, [
    protocolVersion(version),
    dateTime(T.TimeStamp, now),
    integer(T.BatchCount, items.length),
  ]);
  const batch = items.map((i) =>
    structure(T.BatchItem, [
      i.operation !== undefined ? enumeration(T.Operation, i.operation) : undefined,
      i.batchItemId ? bytes(T.UniqueBatchItemId, i.batchItemId) : undefined,
      ...('failure' in i
        ? [
            enumeration(T.ResultStatus, K.ResultStatus.OperationFailed),
            enumeration(T.ResultReason, i.failure.reason),
            text(T.ResultMessage, i.failure.message),
          ]
        : [enumeration(T.ResultStatus, K.ResultStatus.Success), structure(T.ResponsePayload, i.payload)]),
    ]),
  );
  return encodeTtlv(structure(T.ResponseMessage, [header, ...batch]));
}

/** The answer to bytes that frame but do not read as a request. */
export function invalidMessageResponse(err: TtlvError | InvalidMessage, now: Date): Buffer {
  const version =
    err instanceof InvalidMessage && err.version && isSupported(err.version) ? err.version : { major: 1, minor: 0 };
  return encodeResponse(
    version,
    [{ failure: { reason: K.ResultReason.InvalidMessage, message: `invalid message: ${err.message}` } }],
    now,
  );
}
