import type { AnyPlugin } from '../kernel/define-plugin.ts';
import type { ThirdPartyPlugin } from '../kernel/plugin-loader.ts';
import { baseSchema } from '../config/schema.ts';
import { chooseByKind } from '../kernel/settings/choose-by-kind.ts';
import { configuredInstances } from '../kernel/settings/configure.ts';
import type { Deployment } from '../kernel/settings/deployment.ts';
import {
  ALWAYS,
  AWS,
  BY_INSTANCES,
  BY_KIND,
  DETECTORS,
  JWKS,
  K8S_KMS,
  KMIP,
  MCP,
  RISK,
  SECONDARY_SINKS,
  VAULT,
} from './catalogue.ts';

const read = (config: Record<string, unknown>, dotted: string): unknown =>
  dotted.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], config);

/** Picks the plugins this configuration wires: one per selectable port by kind, the features, and third parties. */
export function selectPlugins(
  config: Record<string, unknown>,
  deployment: Deployment,
  thirdParty: ThirdPartyPlugin[],
): AnyPlugin[] {
  const problems: string[] = [];
  const chosen: AnyPlugin[] = [];
  const byKind = chooseByKind(baseSchema, config, BY_KIND);
  problems.push(...byKind.problems);
  chosen.push(...byKind.chosen);
  const enabled = String(read(config, 'detectors.enabled')).trim();
  const names =
    enabled === 'all'
      ? DETECTORS.map((d) => d.kind!)
      : enabled === 'none' || enabled === ''
        ? []
        : enabled.split(',').map((n) => n.trim());
  for (const name of names) {
    const detector = DETECTORS.find((d) => d.kind === name);
    if (detector) chosen.push(detector);
    else
      problems.push(
        `detectors.enabled (env SVC_DETECTORS_ENABLED) names "${name}", which this build has no detector for; available: ${DETECTORS.map((d) => d.kind).join(', ')}`,
      );
  }
  const sinkKinds = SECONDARY_SINKS.map((p) => p.kind!);
  const sinkNames = new Set<string>();
  ((read(config, 'audit.sinks') as unknown[] | undefined) ?? []).forEach((entry, i) => {
    const { kind, name } = (entry ?? {}) as { kind?: unknown; name?: unknown };
    if (!sinkKinds.includes(String(kind)))
      problems.push(
        `audit.sinks[${i}] has kind "${String(kind)}", which this build has no sink for; available: ${sinkKinds.join(', ')}`,
      );
    if (sinkNames.has(String(name)))
      problems.push(`audit.sinks[${i}] repeats the name "${String(name)}"; each sink needs its own`);
    sinkNames.add(String(name));
  });
  for (const plugin of BY_INSTANCES)
    if (configuredInstances(plugin, config, deployment).length > 0) chosen.push(plugin);
  if (problems.length)
    throw new Error(`configuration picks plugins that are not available:\n  - ${problems.join('\n  - ')}`);
  if (read(config, 'risk.enabled') === true) chosen.push(RISK);
  if (read(config, 'mcp.enabled') === true) chosen.push(MCP);
  if (read(config, 'kmip.enabled') === true) chosen.push(KMIP);
  if (read(config, 'aws.enabled') === true) chosen.push(AWS);
  if (read(config, 'jwks.enabled') === true) chosen.push(JWKS);
  if (read(config, 'vault.enabled') === true) chosen.push(VAULT);
  if (String(read(config, 'k8s.socket') ?? '').trim() !== '') chosen.push(K8S_KMS);
  return [...chosen, ...ALWAYS, ...thirdParty.map((t) => t.manifest)];
}
