import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import type { Door } from '../kernel/index.ts';
import { fannedOut } from './door-harness/collecting-sink.ts';
import { heldCall } from './door-harness/hold-operation.ts';
import { until } from './until.ts';

/**
 * Input the door's client sends in the most malformed form that still reaches the door's authentication:
 * for HTTP a body that is not JSON; for a protocol that frames the credential with the call (JSON lines),
 * an input that is not an object. An anonymous call with it must be Unauthorized, never BadRequest.
 */
export const MALFORMED = Symbol('malformed input');

export type DoorAnswer = { result: unknown } | { error: string; message: string };

/** How the suite reaches the door under test: one call, as the door's own clients make it. */
export interface DoorClient {
  /** `credential`: the headers the configured authenticator reads (X-Svc-User in dev mode); none: anonymous. */
  call(
    operationId: string,
    input: unknown,
    credential: Record<string, string> | undefined,
    requestId: string,
  ): Promise<DoorAnswer>;
  /** The operation ids the door offers this caller, for doors that list them (MCP's tools/list). */
  list?(credential: Record<string, string>): Promise<string[]>;
  /**
   * For a protocol that cannot carry this input at all, why (a binary protocol's message is bytes, so it
   * has no text that could be bad base64): the suite reports that case skipped, naming the reason. Every
   * door must still carry the suite's other refusal of the same kind (a key spec with a bad value).
   */
  cannotExpress?(operationId: string, input: unknown): string | undefined;
}

export interface DoorService {
  /** The service's REST base URL (the suite compares answers and reads the audit trail there). */
  restUrl: string;
  /** The started doors (RunningKernel.doors): the suite watches the door under test stop. */
  doors: Door[];
  door: DoorClient;
  stop(): Promise<void>;
}

/**
 * The modules the service under test must load under `plugins:` besides the door: a held operation and a collecting
 * secondary sink.
 */
export const DOOR_CONTRACT_PLUGINS = [
  fileURLToPath(new URL('./door-harness/hold-operation.ts', import.meta.url)),
  fileURLToPath(new URL('./door-harness/collecting-sink.ts', import.meta.url)),
];

async function rest(url: string, method: string, path: string, user: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { 'X-Svc-User': user, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

/** The audit records of one correlation id (the request id the door gave the pipeline). */
async function recordsOf(url: string, actor: string, requestId: string): Promise<any[]> {
  const page = await rest(
    url,
    'GET',
    `/v1/audit?actor=${encodeURIComponent(actor)}&limit=1000`,
    'door-contract-auditor',
  );
  return (page.records as any[]).filter((r) => r.correlationId === requestId);
}

/**
 * The conformance suite every door passes (the kernel's HTTP door, the example socket door, MCP, third
 * parties'). `start` boots the service (auth.kind dev, policy dev) with the door and DOOR_CONTRACT_PLUGINS.
 * Checks: an authenticated call reaches the one pipeline and its one audit record names the door; an
 * anonymous call is refused before its input is read and leaves no record; a refused call answers the
 * REST API's error code and message; what the door lists is what the caller may call; and the door stops
 * before the audit pipeline, so a call in flight at shutdown is answered and reaches the secondary sinks.
 */
export function doorContract(t: Test, name: string, start: () => Promise<DoorService>): void {
  t.test(`door ${name}`, async (t) => {
    const svc = await start();
    let stopped = false;
    t.teardown(() => (stopped ? undefined : svc.stop()));
    const user = `door-contract-${randomUUID().slice(0, 8)}`;
    const alice = { 'X-Svc-User': user };

    t.test('an authenticated call runs through the pipeline; its one audit record names the door', async (t) => {
      const requestId = `dc-${randomUUID()}`;
      const answer = await svc.door.call(
        'CreateKey',
        { spec: { name: `door-contract-${name}`, algorithm: 'EdDSA' } },
        alice,
        requestId,
      );
      t.ok('result' in answer, `created: ${JSON.stringify(answer)}`);
      const records = await recordsOf(svc.restUrl, user, requestId);
      t.equal(records.length, 1, 'exactly one record under the request id the door gave');
      t.match(records[0], { operation: 'Create', outcome: 'Success', context: { door: name } });
    });

    t.test('an anonymous call is refused before its input is read, and writes no record', async (t) => {
      const requestId = `dc-${randomUUID()}`;
      const answer = await svc.door.call('CreateKey', MALFORMED, undefined, requestId);
      t.match(answer, { error: 'Unauthorized' }, 'Unauthorized, not BadRequest: the input was never parsed');
      t.same(await recordsOf(svc.restUrl, user, requestId), []);
    });

    t.test("a refused call answers the REST API's error code and message, and is audited", async (t) => {
      const created = await rest(svc.restUrl, 'POST', '/v1/keys', user, {
        spec: { name: 'door-contract-refusals', algorithm: 'EdDSA' },
      });
      const badSpec = { spec: { name: 'door-contract-bad-size', algorithm: 'AES', sizeBits: 100 } };
      const cases: Array<[string, unknown, string, string, unknown]> = [
        [
          'GetKey',
          { id: '00000000-0000-4000-8000-000000000000' },
          'GET',
          '/v1/keys/00000000-0000-4000-8000-000000000000',
          undefined,
        ],
        [
          'Sign',
          { id: created.id, messageBase64: 'aGk=' },
          'POST',
          `/v1/keys/${created.id}/sign`,
          { messageBase64: 'aGk=' },
        ],
        [
          'Sign',
          { id: created.id, messageBase64: 'not base64!' },
          'POST',
          `/v1/keys/${created.id}/sign`,
          { messageBase64: 'not base64!' },
        ],
        ['CreateKey', badSpec, 'POST', '/v1/keys', badSpec],
      ];
      for (const [op, input, method, path, body] of cases) {
        const inexpressible = svc.door.cannotExpress?.(op, input);
        if (inexpressible) {
          t.skip(`${op} ${JSON.stringify(input)}: ${inexpressible}`, () => undefined);
          continue;
        }
        const requestId = `dc-${randomUUID()}`;
        const viaDoor = await svc.door.call(op, input, alice, requestId);
        const viaRest = await rest(svc.restUrl, method, path, user, body);
        t.ok('error' in viaDoor, `${op} is refused through the door`);
        t.same(viaDoor, viaRest, `${op}: the same {error, message} as REST`);
        const records = await recordsOf(svc.restUrl, user, requestId);
        t.match(records, [{ outcome: (viaDoor as { error: string }).error, context: { door: name } }]);
      }
    });

    if (svc.door.list) {
      t.test('what the door lists is what the caller may call', async (t) => {
        const listed = new Set(await svc.door.list!(alice));
        t.ok(listed.has('CreateKey'));
        for (const op of listed) {
          if (op === 'DoorContractHold') continue; // it waits for the suite
          const answer = await svc.door.call(op, {}, alice, `dc-${randomUUID()}`);
          t.not((answer as { error?: string }).error, 'PermissionDenied', `${op} is listed and not refused by policy`);
        }
      });
    }

    t.test(
      'the door stops before the audit pipeline: a call in flight at shutdown is answered and fanned out',
      async (t) => {
        const door = svc.doors.find((d) => d.name === name);
        t.ok(door, `the service started door ${name}`);
        const stopDoor = door!.stop!.bind(door);
        // The held call ends once its door is stopping: then every sink must still be there for its record.
        door!.stop = async () => {
          heldCall.release();
          return stopDoor();
        };
        heldCall.entered = false;
        const requestId = `dc-${randomUUID()}`;
        const answer = svc.door.call('DoorContractHold', {}, alice, requestId);
        await until(() => heldCall.entered, 'the held call to reach its handler');
        stopped = true;
        const stopping = svc.stop();
        t.same(await answer, { result: { held: true } }, 'answered');
        await stopping;
        t.match(
          fannedOut.filter((e) => e.correlationId === requestId),
          [{ outcome: 'Success', context: { door: name } }],
          'its record reached the secondary sink',
        );
      },
    );
  });
}
