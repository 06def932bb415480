import { createPublicKey } from 'node:crypto';
import { SvcError } from '../../../../kernel/index.ts';
import type { AwsCall, AwsOperationDef } from '../aws-call.ts';
import { AwsError } from '../aws-errors.ts';
import { blob, text, type AwsInput } from '../aws-input.ts';
import { keyArn, keyReference } from '../key-references.ts';
import { algorithmFor, awsKeySpecOf, KEY_SPECS, MAC_ALGORITHMS, SIGNING_ALGORITHMS } from '../key-specs.ts';

/** Sign's and Verify's input: the message, or (MessageType DIGEST) the hash the caller made of it. */
function signedInput(input: AwsInput, call: AwsCall, table: Record<string, string>, field: string) {
  const type = text(input, 'MessageType', 'optional') ?? 'RAW';
  if (type !== 'RAW' && type !== 'DIGEST') throw new SvcError('InvalidField', 'MessageType must be RAW or DIGEST');
  if (type === 'DIGEST' && field === 'MacAlgorithm')
    throw new SvcError('InvalidField', 'a MAC is made over the message');
  return {
    id: keyReference(call, text(input, 'KeyId')),
    [type === 'DIGEST' ? 'digestBase64' : 'messageBase64']: blob(input, 'Message'),
    algorithm: algorithmFor(table, text(input, field), field),
  };
}

async function sign(input: AwsInput, call: AwsCall, table: Record<string, string>, field: string) {
  const { result, input: ran } = await call.run<{ signatureBase64: string }>('Sign', () =>
    signedInput(input, call, table, field),
  );
  return { keyId: keyArn(call, String(ran.id)), signature: result.signatureBase64, algorithm: text(input, field) };
}

async function verify(input: AwsInput, call: AwsCall, table: Record<string, string>, field: string, sigField: string) {
  const { result, input: ran } = await call.run<{ valid: boolean }>('Verify', () => ({
    ...signedInput(input, call, table, field),
    signatureBase64: blob(input, sigField),
  }));
  if (!result.valid)
    throw new AwsError(
      field === 'MacAlgorithm' ? 'KMSInvalidMacException' : 'KMSInvalidSignatureException',
      field === 'MacAlgorithm' ? 'the MAC does not match the message' : 'the signature does not verify',
    );
  return { keyId: keyArn(call, String(ran.id)), algorithm: text(input, field) };
}

export const signingOperations: Record<string, AwsOperationDef> = {
  Sign: {
    primary: 'Sign',
    run: async (input, call) => {
      const signed = await sign(input, call, SIGNING_ALGORITHMS, 'SigningAlgorithm');
      return { KeyId: signed.keyId, Signature: signed.signature, SigningAlgorithm: signed.algorithm };
    },
  },
  Verify: {
    primary: 'Verify',
    run: async (input, call) => {
      const verified = await verify(input, call, SIGNING_ALGORITHMS, 'SigningAlgorithm', 'Signature');
      return { KeyId: verified.keyId, SignatureValid: true, SigningAlgorithm: verified.algorithm };
    },
  },
  GenerateMac: {
    primary: 'Sign',
    run: async (input, call) => {
      const signed = await sign(input, call, MAC_ALGORITHMS, 'MacAlgorithm');
      return { Mac: signed.signature, MacAlgorithm: signed.algorithm, KeyId: signed.keyId };
    },
  },
  VerifyMac: {
    primary: 'Verify',
    run: async (input, call) => {
      const verified = await verify(input, call, MAC_ALGORITHMS, 'MacAlgorithm', 'Mac');
      return { KeyId: verified.keyId, MacValid: true, MacAlgorithm: verified.algorithm };
    },
  },
  GetPublicKey: {
    primary: 'GetPublicKey',
    run: async (input, call) => {
      const { result, input: ran } = await call.run<{ publicKeyPem: string; algorithm: string; curve?: string }>(
        'GetPublicKey',
        () => ({ id: keyReference(call, text(input, 'KeyId')) }),
      );
      const key = createPublicKey(result.publicKeyPem);
      const spec = {
        algorithm: key.asymmetricKeyType === 'rsa' ? 'RSA' : key.asymmetricKeyType === 'ec' ? 'EC' : 'EdDSA',
        sizeBits: key.asymmetricKeyDetails?.modulusLength ?? 0,
        curve: result.curve ?? (key.asymmetricKeyType === 'ed25519' ? 'Ed25519' : undefined),
      };
      const keySpec = awsKeySpecOf(spec);
      const entry = keySpec ? KEY_SPECS[keySpec] : undefined;
      return {
        KeyId: keyArn(call, String(ran.id)),
        PublicKey: key.export({ type: 'spki', format: 'der' }).toString('base64'),
        CustomerMasterKeySpec: keySpec ?? spec.algorithm,
        KeySpec: keySpec ?? spec.algorithm,
        KeyUsage: 'SIGN_VERIFY',
        ...(entry?.signing ? { SigningAlgorithms: Object.keys(entry.signing) } : {}),
      };
    },
  },
};
