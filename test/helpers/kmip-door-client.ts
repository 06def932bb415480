import { readFileSync } from 'node:fs';
import type { DoorAnswer, DoorClient } from '../../contracts/door.ts';
import { MALFORMED } from '../../contracts/door.ts';
import type { KmipAdapter } from '../../plugins/doors/kmip/operations/adapter.ts';
import {
  bytes,
  child,
  enumeration,
  integer,
  K,
  structure,
  text,
  type TtlvItem,
} from '../../plugins/doors/kmip/ttlv/index.ts';
import { kmipRequest, RawKmipClient, responseItems, type KmipIdentity, type KmipService } from './kmip.ts';

const T = K.Tag;
const O = K.Operation;
const A = K.CryptographicAlgorithm;
const R = K.ResultReason;

/**
 * A vendor operation (KMIP reserves 0x8XXXXXXX for them) that the door contract test adds to the door it
 * tests, as the suite's harness adds DoorContractHold to the registry: KMIP's operations are a fixed table,
 * so the suite's held call needs an entry of its own there. Its answer is the operation's JSON as text.
 */
export const HOLD_OPERATION = 0x80000001;
const HOLD_ANSWER_TAG = 0x540001;

/** The adapter HOLD_OPERATION runs: DoorContractHold through the door's own call (principal, correlation, pipeline). */
export const holdAdapter: KmipAdapter = async (_payload, call) => ({
  payload: [text(HOLD_ANSWER_TAG, JSON.stringify(await call.run('DoorContractHold', {})))],
});

/** The REST error code a KMIP client reads back from a Result Reason (the door's mapping, reversed). */
const CODE_OF_REASON: Record<number, string> = {
  [R.PermissionDenied]: 'PermissionDenied',
  [R.AuthenticationNotSuccessful]: 'Unauthorized',
  [R.ItemNotFound]: 'KeyNotFound',
  [R.WrongKeyLifecycleState]: 'IllegalOperation',
  [R.InvalidField]: 'InvalidField',
  [R.KeyFormatTypeNotSupported]: 'InvalidField',
  [R.InvalidMessage]: 'BadRequest',
  [R.CryptographicFailure]: 'DecryptionFailed',
  [R.OperationCanceledByRequester]: 'StepUpRequired',
};

const ALGORITHMS: Record<string, number> = { AES: A.Aes, RSA: A.Rsa, EC: A.Ec, HMAC: A.HmacSha256 };
const name = (value: string) =>
  structure(T.Name, [text(T.NameValue, value), enumeration(T.NameType, K.NameType.UninterpretedTextString)]);
const uidOf = (payload: TtlvItem | undefined, tag: number = T.UniqueIdentifier) =>
  (child(payload, tag) as { value: string } | undefined)?.value;
const canonicalBase64 = (text: unknown) =>
  typeof text === 'string' && Buffer.from(text, 'base64').toString('base64') === text;

interface Translated {
  operation: number;
  payload: TtlvItem[];
  /** The REST-shaped result, from what the KMIP answer carries. */
  result(payload: TtlvItem | undefined): unknown;
}

/** A REST operation and its input as a KMIP 2.0 client sends it (attributes by tag). */
function translate(operationId: string, input: any): Translated {
  if (operationId === 'CreateKey') {
    const spec = input.spec;
    const pair = spec.algorithm === 'RSA' || spec.algorithm === 'EC' || spec.algorithm === 'EdDSA';
    const algorithm =
      spec.algorithm === 'EdDSA' ? (spec.curve === 'Ed448' ? A.Ed448 : A.Ed25519) : ALGORITHMS[spec.algorithm]!;
    const attributes = [
      enumeration(T.CryptographicAlgorithm, algorithm),
      ...(spec.sizeBits !== undefined ? [integer(T.CryptographicLength, spec.sizeBits)] : []),
      name(spec.name),
    ];
    return pair
      ? {
          operation: O.CreateKeyPair,
          payload: [structure(T.CommonAttributes, attributes)],
          result: (p) => ({ id: uidOf(p, T.PrivateKeyUniqueIdentifier) }),
        }
      : {
          operation: O.Create,
          payload: [enumeration(T.ObjectType, K.ObjectType.SymmetricKey), structure(T.Attributes, attributes)],
          result: (p) => ({ id: uidOf(p) }),
        };
  }
  if (operationId === 'GetKey')
    return {
      operation: O.GetAttributes,
      payload: [text(T.UniqueIdentifier, input.id)],
      result: (p) => ({ id: uidOf(p) }),
    };
  if (operationId === 'Sign') {
    return {
      operation: O.Sign,
      payload: [text(T.UniqueIdentifier, input.id), bytes(T.Data, Buffer.from(input.messageBase64, 'base64'))],
      result: (p) => ({ signatureBase64: (child(p, T.SignatureData) as { value: Buffer }).value.toString('base64') }),
    };
  }
  if (operationId === 'DoorContractHold')
    return {
      operation: HOLD_OPERATION,
      payload: [],
      result: (p) => JSON.parse((child(p, HOLD_ANSWER_TAG) as { value: string }).value),
    };
  throw new Error(`the KMIP door client does not translate ${operationId}`);
}

/**
 * The KMIP door as the door contract suite's client: each call is one KMIP 2.0 message on its own mutual-TLS
 * connection. The credential is a client certificate whose CN is the suite's X-Svc-User subject (an
 * anonymous caller presents none, so the handshake refuses it before any KMIP is read); the suite's request
 * id is the message's Client Correlation Value; a failure reads back as the REST error code of its Result
 * Reason and the Result Message.
 */
export function kmipDoorClient(kmip: KmipService): DoorClient {
  const identities = new Map<string, KmipIdentity>();
  const identity = (subject: string) => {
    if (!identities.has(subject))
      identities.set(subject, kmip.identity(`contract-${identities.size}`, `/CN=${subject}`));
    return identities.get(subject)!;
  };
  const ca = readFileSync(kmip.pki.caFile);
  return {
    cannotExpress: (operationId, input) =>
      operationId === 'Sign' && !canonicalBase64((input as { messageBase64?: unknown }).messageBase64)
        ? "KMIP's Data is bytes: a message cannot be text that is not base64"
        : undefined,
    async call(operationId, input, credential, requestId): Promise<DoorAnswer> {
      const subject = credential?.['X-Svc-User'];
      const client = await RawKmipClient.connect(
        kmip.port,
        ca,
        subject === undefined ? undefined : identity(subject),
      ).catch(() => undefined);
      const refused: DoorAnswer = {
        error: 'Unauthorized',
        message: 'the TLS handshake refused a connection without a client certificate the client CA signed',
      };
      if (!client) return refused;
      try {
        const translated =
          input === MALFORMED
            ? { operation: O.Create, payload: [text(T.Data, 'not a payload')], result: () => undefined }
            : translate(operationId, input);
        const request = kmipRequest([2, 0], [{ operation: translated.operation, payload: translated.payload }]);
        (child(request, T.RequestHeader) as { value: TtlvItem[] }).value.splice(
          1,
          0,
          text(T.ClientCorrelationValue, requestId),
        );
        const response = await client.request(request);
        // TLS 1.3: a client without a certificate finishes its side first; the server then closes unanswered.
        if (!response) return refused;
        const [item] = responseItems(response);
        if (item!.status === K.ResultStatus.Success) return { result: translated.result(item!.payload) };
        return { error: CODE_OF_REASON[item!.reason!] ?? 'InternalError', message: item!.message ?? '' };
      } finally {
        client.close();
      }
    },
  };
}
