import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import {
  DOOR_CONTRACT_PLUGINS,
  type DoorAnswer,
  type DoorClient,
  doorContract,
  MALFORMED,
} from '../../contracts/door.ts';
import { AWS_OPERATIONS } from '../../plugins/doors/aws-kms/operations/index.ts';
import { type AccessKey, signedRequest } from '../helpers/aws-kms.ts';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';

/** The REST code an AWS client reads back from an exception name (the door's mapping, reversed). */
const CODE_OF_EXCEPTION: Record<string, string> = {
  NotFoundException: 'KeyNotFound',
  ValidationException: 'InvalidField',
  KMSInvalidStateException: 'IllegalOperation',
  DisabledException: 'IllegalOperation',
  AccessDeniedException: 'PermissionDenied',
  InvalidCiphertextException: 'DecryptionFailed',
  InvalidKeyUsageException: 'InvalidField',
  MissingAuthenticationTokenException: 'Unauthorized',
  UnrecognizedClientException: 'Unauthorized',
};

/** A service operation and its input as an AWS client sends it. */
function translate(operationId: string, input: any): { target: string; body: unknown; result: (out: any) => unknown } {
  if (operationId === 'CreateKey') {
    if (input.spec.algorithm !== 'EdDSA') throw new Error(`no AWS KeySpec for ${JSON.stringify(input.spec)}`);
    return {
      target: 'CreateKey',
      body: { KeySpec: 'ECC_NIST_EDWARDS25519', KeyUsage: 'SIGN_VERIFY' },
      result: (o) => ({ id: o.KeyMetadata.KeyId }),
    };
  }
  if (operationId === 'GetKey')
    return { target: 'DescribeKey', body: { KeyId: input.id }, result: (o) => ({ id: o.KeyMetadata.KeyId }) };
  if (operationId === 'Sign')
    return {
      target: 'Sign',
      body: { KeyId: input.id, Message: input.messageBase64, SigningAlgorithm: 'ED25519_SHA_512' },
      result: (o) => ({ signatureBase64: o.Signature }),
    };
  if (operationId === 'DoorContractHold') return { target: 'DoorContractHold', body: {}, result: (o) => o };
  throw new Error(`the AWS door client does not translate ${operationId}`);
}

/**
 * The AWS door as the door contract's client: each call is a signed JSON 1.1 request with an access key of
 * the suite's X-Svc-User (made over REST), the suite's request id as X-Request-Id (the door's request id);
 * a failure reads back as the REST code of its exception and the message.
 */
function awsDoorClient(svc: TestService): DoorClient {
  const keys = new Map<string, AccessKey>();
  const keyOf = async (user: string) => {
    if (!keys.has(user)) {
      const made = (await svc.client(user).post('/v1/access-keys', {})).body;
      keys.set(user, { accessKeyId: made.accessKeyId, secretAccessKey: made.secretAccessKey });
    }
    return keys.get(user)!;
  };
  return {
    cannotExpress: (operationId, input) =>
      operationId === 'CreateKey' && (input as { spec: { algorithm: string } }).spec.algorithm !== 'EdDSA'
        ? 'AWS asks for keys by KeySpec name: there is no name for an AES key of another size than 256 bits'
        : undefined,
    async call(operationId, input, credential, requestId): Promise<DoorAnswer> {
      const headers = { 'x-request-id': requestId };
      if (input === MALFORMED) {
        const res = await fetch(`${svc.url}/aws/kms`, {
          method: 'POST',
          headers: { ...headers, 'x-amz-target': 'TrentService.CreateKey' },
          body: '{"KeySpec": ',
        });
        const body = await res.json();
        return { error: CODE_OF_EXCEPTION[body.__type] ?? body.__type, message: body.message };
      }
      const translated = translate(operationId, input);
      const answer = await signedRequest(
        svc,
        await keyOf(credential!['X-Svc-User']!),
        translated.target,
        JSON.stringify(translated.body),
        {
          afterSigning: headers,
        },
      );
      if (answer.status === 200) return { result: translated.result(answer.body) };
      return { error: CODE_OF_EXCEPTION[answer.body.__type] ?? answer.body.__type, message: answer.body.message };
    },
  };
}

doorContract(t, 'aws', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'svc.yaml');
  writeFileSync(config, `plugins:\n${DOOR_CONTRACT_PLUGINS.map((p) => `  - ${p}\n`).join('')}`);
  const svc = await startTestService({ SVC_CONFIG_FILE: config }, { dir });
  // The suite's held operation, reachable over the AWS API only as an operation of the door's table.
  AWS_OPERATIONS.DoorContractHold = {
    primary: 'DoorContractHold',
    run: async (_input, call) => (await call.run('DoorContractHold', () => ({}))).result,
  };
  return { restUrl: svc.url, doors: svc.kernel.doors, door: awsDoorClient(svc), stop: () => svc.stop() };
});
