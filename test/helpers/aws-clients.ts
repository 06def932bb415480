import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Test } from 'tap';
import type { AccessKey } from './aws-kms.ts';
import { DEBIAN_PYTHON, debianPythonModule, type Ran, runClient as run } from './client-process.ts';
import { debianTool } from './debian-tool.ts';
import { tempDir } from './service.ts';
import { serverMissing } from './test-server.ts';

/**
 * Debian's AWS clients pointed at the service's AWS door: the AWS CLI (`awscli`, 2.x) and boto3
 * (`python3-boto3`), each installed from Debian when missing (as CI runs, root). Both are the
 * distribution's: the `aws` and `python3` first on PATH may be pyenv's (another CLI, no boto3), so
 * they run by their Debian paths, with an environment of their own that reads no file of this machine.
 */

const DEBIAN_AWS = '/usr/bin/aws';
const BOTO3_FIXTURE = path.resolve('test/fixtures/aws-boto3-client.py');

/** The environment of a client run: nothing of this machine's AWS set-up, no retries, no pager. */
function clientEnv(dir: string, extra: Record<string, string>): NodeJS.ProcessEnv {
  const empty = path.join(dir, 'empty');
  writeFileSync(empty, '');
  return {
    PATH: '/usr/bin:/bin',
    HOME: dir,
    LANG: 'C.UTF-8',
    AWS_CONFIG_FILE: empty,
    AWS_SHARED_CREDENTIALS_FILE: empty,
    AWS_PAGER: '',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_MAX_ATTEMPTS: '1',
    AWS_RETRY_MODE: 'standard',
    ...extra,
  };
}

/**
 * RotateKeyOnDemand is newer (2024) than the KMS model in Debian 12's awscli 2.9 and botocore 1.29.
 * Both load their service models from AWS_DATA_PATH before their own (botocore's loader, the way
 * `aws configure add-model` extends a model): this writes the package's own KMS model there with that
 * one operation added, as AWS's current model defines it. Answers the folder for AWS_DATA_PATH, or
 * undefined when the package's model already has the operation.
 */
async function kmsModelWithRotateKeyOnDemand(botocoreModule: string, dir: string): Promise<string | undefined> {
  const located = await run(
    DEBIAN_PYTHON,
    [
      '-c',
      'import importlib, os, sys; print(os.path.join(os.path.dirname(importlib.import_module(sys.argv[1]).__file__), "data", "kms"))',
      botocoreModule,
    ],
    { env: { PATH: '/usr/bin:/bin' } },
  );
  if (located.code !== 0) throw new Error(`${botocoreModule}'s data folder: ${located.stderr}`);
  const kmsData = located.stdout.trim();
  const version = readdirSync(kmsData).sort().at(-1)!;
  const model = JSON.parse(readFileSync(path.join(kmsData, version, 'service-2.json'), 'utf8'));
  if (model.operations.RotateKeyOnDemand) return undefined;
  model.operations.RotateKeyOnDemand = {
    name: 'RotateKeyOnDemand',
    http: { method: 'POST', requestUri: '/' },
    input: { shape: 'RotateKeyOnDemandRequest' },
    output: { shape: 'RotateKeyOnDemandResponse' },
    errors: [
      { shape: 'NotFoundException' },
      { shape: 'DisabledException' },
      { shape: 'DependencyTimeoutException' },
      { shape: 'InvalidArnException' },
      { shape: 'KMSInternalException' },
      { shape: 'KMSInvalidStateException' },
      { shape: 'UnsupportedOperationException' },
    ],
  };
  model.shapes.RotateKeyOnDemandRequest = {
    type: 'structure',
    required: ['KeyId'],
    members: { KeyId: { shape: 'KeyIdType' } },
  };
  model.shapes.RotateKeyOnDemandResponse = { type: 'structure', members: { KeyId: { shape: 'KeyIdType' } } };
  const dataPath = path.join(dir, 'models');
  mkdirSync(path.join(dataPath, 'kms', version), { recursive: true });
  writeFileSync(path.join(dataPath, 'kms', version, 'service-2.json'), JSON.stringify(model));
  return dataPath;
}

export interface CliAnswer extends Ran {
  /** stdout as JSON (`--output json`), undefined when empty. */
  json: any;
}

export interface AwsCli {
  version: string;
  /** `aws kms ARGS...`; never throws: the exit code, stdout and stderr as the CLI left them. */
  kms(...args: string[]): Promise<CliAnswer>;
  /** `aws kms ARGS...` that must succeed: its JSON output. */
  ok(...args: string[]): Promise<any>;
  /** `fileb://` of a new file holding `bytes`, for the CLI's blob arguments. */
  fileb(bytes: Buffer | Uint8Array): string;
}

/**
 * Debian's AWS CLI (installed when missing) signing with `key` for `region`, `--endpoint-url` the
 * service's AWS door. Undefined, the test failed or skipped, when it cannot be had.
 */
export async function awsCli(t: Test, doorUrl: string, key: AccessKey, region = 'eu-west-1') {
  if (!debianTool(DEBIAN_AWS, 'awscli'))
    return serverMissing(t, "Debian's awscli is not installed and could not be installed");
  const dir = tempDir('svc-aws-cli-');
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dataPath = await kmsModelWithRotateKeyOnDemand('awscli.botocore', dir);
  const env = clientEnv(dir, {
    AWS_ACCESS_KEY_ID: key.accessKeyId,
    AWS_SECRET_ACCESS_KEY: key.secretAccessKey,
    AWS_DEFAULT_REGION: region,
    ...(dataPath ? { AWS_DATA_PATH: dataPath } : {}),
  });
  const version = (await run(DEBIAN_AWS, ['--version'], { env })).stdout.trim();
  let files = 0;
  const cli: AwsCli = {
    version,
    kms: async (...args) => {
      const ran = await run(DEBIAN_AWS, ['--endpoint-url', doorUrl, '--output', 'json', 'kms', ...args], {
        env,
        cwd: dir,
      });
      let json: any;
      try {
        json = ran.stdout.trim() ? JSON.parse(ran.stdout) : undefined;
      } catch {
        json = undefined;
      }
      return { ...ran, json };
    },
    ok: async (...args) => {
      const ran = await cli.kms(...args);
      if (ran.code !== 0) throw new Error(`aws kms ${args.join(' ')} exited ${ran.code}: ${ran.stderr}`);
      return ran.json;
    },
    fileb: (bytes) => {
      const file = path.join(dir, `blob-${++files}`);
      writeFileSync(file, bytes);
      return `fileb://${file}`;
    },
  };
  return cli;
}

/** A boto3 call: a kms client method (snake_case) and its keyword arguments. */
export interface Boto3Step {
  op: string;
  args?: Record<string, unknown>;
}

export type Boto3Result = { ok: any } | { error: { code: string; exception: string; message: string; status: number } };

/** A blob argument for boto3 (bytes on the Python side). */
export const blob = (bytes: Buffer | Uint8Array) => ({ $b64: Buffer.from(bytes).toString('base64') });
/** A member of the answer of an earlier step of the same run: `ref(0, 'KeyMetadata', 'KeyId')`. */
export const ref = (step: number, ...members: string[]) => ({ $ref: [step, ...members] });
/** A blob of a boto3 answer (`{$b64}`) as bytes. */
export const bytesOf = (value: any): Buffer => {
  if (!value || typeof value.$b64 !== 'string') throw new Error(`not a blob: ${JSON.stringify(value)}`);
  return Buffer.from(value.$b64, 'base64');
};

export interface Boto3 {
  version: string;
  /** Runs the steps in one Python process, in order, each answered or refused (never thrown). */
  run(steps: Boto3Step[]): Promise<Boto3Result[]>;
  /** One call that must succeed: its answer. */
  ok(op: string, args?: Record<string, unknown>): Promise<any>;
}

/**
 * boto3's kms client (Debian's python3-boto3, installed when missing) against the door: endpoint_url,
 * region_name and the access key as the client's arguments, botocore's retries off.
 */
export async function boto3Client(t: Test, doorUrl: string, key: AccessKey, region = 'eu-west-1') {
  if (!(await debianPythonModule('boto3', 'python3-boto3')))
    return serverMissing(t, "Debian's python3-boto3 is not installed and could not be installed");
  const dir = tempDir('svc-boto3-');
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dataPath = await kmsModelWithRotateKeyOnDemand('botocore', dir);
  const env = clientEnv(dir, dataPath ? { AWS_DATA_PATH: dataPath } : {});
  const call = async (steps: Boto3Step[]): Promise<{ version: string; results: Boto3Result[] }> => {
    const input = JSON.stringify({
      endpoint: doorUrl,
      region,
      accessKeyId: key.accessKeyId,
      secretAccessKey: key.secretAccessKey,
      steps,
    });
    const ran = await run(DEBIAN_PYTHON, [BOTO3_FIXTURE], { env, input });
    if (ran.code !== 0) throw new Error(`aws-boto3-client.py exited ${ran.code}: ${ran.stderr}`);
    return JSON.parse(ran.stdout);
  };
  const { version } = await call([]);
  const boto3: Boto3 = {
    version,
    run: async (steps) => (await call(steps)).results,
    ok: async (op, args = {}) => {
      const [result] = await boto3.run([{ op, args }]);
      if (!result || !('ok' in result)) throw new Error(`boto3 ${op} failed: ${JSON.stringify(result)}`);
      return result.ok;
    },
  };
  return boto3;
}
