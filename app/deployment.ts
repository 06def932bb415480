import { nodeIdOf } from '../config/node.ts';
import { baseSchema, type LoadedValues } from '../config/schema.ts';
import { configuredWorkers } from '../config/workers.ts';
import { chosenKinds } from '../kernel/settings/choose-by-kind.ts';
import type { Deployment } from '../kernel/settings/deployment.ts';

/** The facts of this deployment every plugin's `configure` may read, from the validated base settings. */
export function deploymentOf(values: LoadedValues): Deployment {
  return Object.freeze({
    nodeId: nodeIdOf(values),
    dataDir: String(values.node.dataDir),
    workers: configuredWorkers(values),
    http: Object.freeze({ host: String(values.http.host), maxBodyBytes: Number(values.http.maxBodyBytes) }),
    kinds: Object.freeze(chosenKinds(baseSchema, values)),
    hmacSecret: String(values.auth.hmacSecret),
  });
}
