import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { DOOR_CONTRACT_PLUGINS, doorContract, MALFORMED, type DoorClient } from '../../contracts/door.ts';
import type { AnyOperation } from '../../kernel/index.ts';
import { pathFields } from '../../kernel/http/operation-route.ts';
import { startTestService, tempDir } from '../helpers/service.ts';

/**
 * The REST API as a door client: the operation's HTTP binding, path fields from the input, the rest as body or query.
 */
function restClient(url: string, operations: AnyOperation[]): DoorClient {
  return {
    async call(operationId, input, credential, requestId) {
      const def = operations.find((o) => o.id === operationId);
      if (!def?.http) throw new Error(`${operationId} has no HTTP binding`);
      const fields = { ...(input === MALFORMED ? {} : (input as Record<string, unknown>)) };
      let target = def.http.path;
      for (const f of pathFields(target)) {
        target = target.replace(`:${f}`, encodeURIComponent(String(fields[f])));
        delete fields[f];
      }
      const get = def.http.method === 'GET';
      if (get) target += `?${new URLSearchParams(fields as Record<string, string>)}`;
      const body = input === MALFORMED ? '{"spec": ' : get ? undefined : JSON.stringify(fields);
      const res = await fetch(`${url}${target}`, {
        method: def.http.method,
        headers: {
          ...credential,
          'X-Request-Id': requestId,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body,
      });
      const answer = await res.json();
      return res.ok ? { result: answer } : answer;
    },
  };
}

doorContract(t, 'http', async () => {
  const dir = tempDir();
  const config = path.join(dir, 'svc.yaml');
  writeFileSync(config, `plugins:\n${DOOR_CONTRACT_PLUGINS.map((p) => `  - ${p}\n`).join('')}`);
  const svc = await startTestService({ SVC_CONFIG_FILE: config }, { dir });
  return {
    restUrl: svc.url,
    doors: svc.kernel.doors,
    door: restClient(svc.url, svc.kernel.pipeline.list()),
    stop: () => svc.stop(),
  };
});
