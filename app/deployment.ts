import { nodeIdOf } from '../config/node.ts';
import type { LoadedValues } from '../config/schema.ts';
import { configuredWorkers } from '../config/workers.ts';
import type { Deployment } from '../kernel/settings/deployment.ts';
import { SELECTABLE } from './catalogue.ts';

/** The facts of this deployment every plugin's `configure` may read, from the validated base settings. */
export function deploymentOf(values: LoadedValues): Deployment {
  const kinds = Object.fromEntries(
    SELECTABLE.map((s) => [
      s.configKey.split('.')[0]!,
      String((values[s.configKey.split('.')[0]!] as { kind: unknown }).kind),
    ]),
  );
  return Object.freeze({
    nodeId: nodeIdOf(values),
    dataDir: String(values.node.dataDir),
    workers: configuredWorkers(values),
    http: Object.freeze({ host: String(values.http.host), maxBodyBytes: Number(values.http.maxBodyBytes) }),
    kinds: Object.freeze(kinds),
    hmacSecret: String(values.auth.hmacSecret),
  });
}
