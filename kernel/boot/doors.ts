import type { BootOptions } from './options.ts';
import { jsonBodyReader } from '../http/body.ts';
import { mountProblems } from '../http/door-mounts.ts';
import { HttpHost } from '../http/host.ts';
import { buildOpenApi, openApiYaml } from '../http/openapi.ts';
import { operationalRoutes } from '../http/operational-routes.ts';
import type { PublicRoute } from '../http/route.ts';
import { type Authenticator, authenticatorPort } from '../ports/authenticator.ts';
import type { Door, DoorMount } from '../ports/door.ts';
import type { StartedCore } from './core.ts';

/** Every door's mounts on the service's listener, each with the door it belongs to. */
function doorMountsOf(doors: Door[]): Array<{ door: string; mount: DoorMount }> {
  return doors.flatMap((d) => (d.mounts ? d.mounts().map((mount) => ({ door: d.name, mount })) : []));
}

/**
 * Starts the plugins' doors, then the kernel's HTTP door with their mounts (listening unless
 * `listen: false`). A failure stops everything the core started, in reverse order.
 */
export async function openDoors(core: StartedCore, opts: BootOptions): Promise<HttpHost> {
  const { container, contributions, metrics, lifecycle, doors, audit, pipeline, relay } = core;
  const operations = contributions.flatMap((c) => c.operations);
  const authenticator = container.resolve<Authenticator>(authenticatorPort.id);
  let yamlDoc: string | undefined;
  // Side by side: a worker's whole answer must come within the primary's 3 s, and each part may take 2 s or more.
  const localProbe = async () =>
    Object.assign({}, ...(await Promise.all([lifecycle.probe(), doors.probe(), audit.health()])));
  opts.workers?.answerProbesWith(localProbe);
  const groups = Object.assign({}, ...contributions.map((c) => c.groups));
  const publicRoutes: PublicRoute[] = operationalRoutes({
    metrics,
    probe: opts.workers ? () => opts.workers!.readiness() : localProbe,
    nodeMetrics: opts.workers && (() => opts.workers!.metrics()),
    openApiYaml: (): string =>
      (yamlDoc ??= openApiYaml(buildOpenApi(operations, publicRoutes, { version: opts.version, groups }))),
    authenticator,
    logger: opts.logger,
  });
  try {
    await doors.start();
    const mounts = doorMountsOf(doors.instances() as Door[]);
    const kernelPaths = [
      ...operations.flatMap((o) => (o.http ? [o.http.path] : [])),
      ...publicRoutes.map((r) => r.path),
    ];
    const problems = mountProblems(mounts, kernelPaths);
    if (problems.length) throw new Error(`doors: ${problems.join('; ')}`);
    const host = new HttpHost(
      operations,
      publicRoutes,
      { pipeline, authenticator, metrics, readBody: jsonBodyReader(opts.http.maxBodyBytes) },
      opts.http,
      opts.logger,
      mounts.map((m) => m.mount),
    );
    if (opts.listen !== false) await host.start();
    return host;
  } catch (err) {
    await doors.stop();
    await relay.stop();
    await audit.stop();
    await lifecycle.stop();
    throw err;
  }
}
