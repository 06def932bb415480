import { isAlias, SvcError, type ManagedKey } from '../../../../kernel/index.ts';
import { objectRef } from '../key-attributes.ts';
import type { ProtocolVersion } from '../messages.ts';
import { child, K, text, type TtlvItem } from '../ttlv/index.ts';

/** One batch item's view of the connection: its protocol version and the pipeline, as its principal. */
export interface KmipCall {
  version: ProtocolVersion;
  /** KMIP 2.0 carries attributes by tag in Attributes structures; 1.x by name in Attribute structures. */
  v2: boolean;
  /**
   * Runs a registered operation through the one pipeline (policy, risk, rate limit, validation, audit
   * with door kmip, detectors, metrics). `rejected`: the door could not translate the request; the
   * pipeline authorizes, then refuses with it and audits the refusal.
   */
  run<R = unknown>(operationId: string, input: Record<string, unknown>, rejected?: SvcError): Promise<R>;
  /** The Unique Identifier the previous batch item answered (KMIP's ID Placeholder). */
  placeholder: string | undefined;
}

export interface KmipAnswer {
  payload: TtlvItem[];
  /** The object this item answered about, for the next item's ID Placeholder. */
  uid?: string;
}

/** Translates one operation's request payload to registered operations and their answers back. */
export type KmipAdapter = (payload: TtlvItem, call: KmipCall) => Promise<KmipAnswer>;

/** The request's Unique Identifier, or the ID Placeholder; undefined when neither is there. */
export function uidOf(payload: TtlvItem, call: KmipCall): string | undefined {
  const uid = child(payload, K.Tag.UniqueIdentifier);
  if (uid?.type === 'TextString') return uid.value;
  return call.placeholder;
}

export const uidItem = (uid: string) => text(K.Tag.UniqueIdentifier, uid);

/** A missing Unique Identifier, refused by the pipeline like a REST call without its key id. */
export const missingUid = () =>
  new SvcError('InvalidField', 'Unique Identifier is required (or an ID Placeholder from an earlier batch item)');

/** Reads the bytes of a Byte String child. */
export function bytesOf(payload: TtlvItem, tag: number): Buffer | undefined {
  const item = child(payload, tag);
  return item?.type === 'ByteString' ? item.value : undefined;
}

/** Reads the key through GetKey (operation Get: the caller needs the right to read it). */
export const getKey = (call: KmipCall, keyId: string) => call.run<ManagedKey>('GetKey', { id: keyId });

/** The Data of a request: required by every cryptographic operation. */
export function dataOf(payload: TtlvItem): Buffer {
  const data = bytesOf(payload, K.Tag.Data);
  if (!data) throw new SvcError('InvalidField', 'Data is required');
  return data;
}

/**
 * Runs a keyed operation: `build` translates the payload into the operation's input, and what it cannot
 * translate (it throws) goes to the pipeline as the call's refusal, authorized and audited like any.
 */
export async function keyed<R>(
  call: KmipCall,
  payload: TtlvItem,
  operationId: string,
  build: () => Record<string, unknown>,
): Promise<{ uid: string; result: R }> {
  const uid = uidOf(payload, call);
  let input: Record<string, unknown> = {};
  let rejected: SvcError | undefined = uid === undefined ? missingUid() : undefined;
  try {
    input = build();
  } catch (err) {
    rejected ??= err instanceof SvcError ? err : new SvcError('InvalidField', String(err));
  }
  const id = uid === undefined ? undefined : objectRef(uid).keyId;
  const args = { ...input, ...(id !== undefined ? { id } : {}) };
  const result = await call.run<R>(operationId, args, rejected);
  // An alias answers as the id of the key it named at this call: the pipeline resolved it in the input.
  const answered = isAlias(uid) && typeof args.id === 'string' ? args.id : uid;
  return { uid: answered ?? '', result };
}
