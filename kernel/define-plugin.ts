import type { Clock } from './ports/clock.ts';
import type { Logger } from './ports/logger.ts';
import type { PortRef } from './ports/port-ref.ts';
import type { PreflightNode } from './preflight.ts';

/**
 * Bumped when the manifest shape or a port changes incompatibly (2: the journal's node registry and
 * background erasure, the agent registry's jti lookups); third-party plugins declare the version they were
 * built for, and the loader refuses another one.
 */
export const KERNEL_API_VERSION = 2;

/** A convict schema fragment: nested objects of `{doc, format, default, env?, sensitive?}` leaves. */
export type ConfigFragment = Record<string, unknown>;

type Deps<D extends Record<string, PortRef<unknown>>> = { [K in keyof D]: D[K] extends PortRef<infer T> ? (D[K]['multiple'] extends true ? T[] : T) : never };

export interface PluginContext<C, D extends Record<string, PortRef<unknown>>> {
  /** This plugin's validated, frozen config slice (the whole config, read-only, for builtin cross-cutting choices). */
  config: C;
  deps: Deps<D>;
  logger: Logger;
  clock: Clock;
}

/**
 * A plugin manifest. Importing the module that exports it must do nothing; `create` builds the
 * implementation without I/O; resources are acquired in the implementation's own `start()`.
 */
export interface PluginManifest<T = unknown, C = unknown, D extends Record<string, PortRef<unknown>> = Record<string, PortRef<unknown>>> {
  id: string;
  apiVersion: number;
  provides: PortRef<T>;
  /** The config value that selects this plugin for its port (journal.kind: rdb-embedded, ...). */
  kind?: string;
  description: string;
  dependsOn?: D;
  /** Config schema fragment, merged into the whole schema at its own top-level keys. */
  config?: ConfigFragment;
  /**
   * Reads this plugin's slice out of the validated configuration. Type its parameter with what it reads:
   * `BaseConfig & ConfigValues<typeof myConfig>` (config/schema.ts, kernel/config-values.ts); the kernel
   * passes the whole validated configuration, frozen.
   */
  configSlice?: (all: any) => C;
  /**
   * On a multiple port only: one instance per entry (several webhooks in audit.sinks), each built by
   * `create` from its own config; names tell the instances apart (`<id>:<name>` in the container).
   * Without it the plugin has one instance, from `configSlice`.
   */
  instances?: (all: any) => Array<{ name: string; config: C }>;
  /** Checks over config alone, run before anything starts. */
  preflight?: (config: C, env: PreflightEnv) => PreflightNode[];
  create(ctx: PluginContext<C, D>): T;
}

export interface PreflightEnv {
  /** True when the bind address is reachable from the network (not loopback). */
  exposed: boolean;
}

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export function isValidPluginId(id: string): boolean {
  return KEBAB.test(id);
}

/** Identity helper that checks the manifest's types where it is written. */
export function definePlugin<T, C, D extends Record<string, PortRef<unknown>> = Record<string, never>>(
  manifest: PluginManifest<T, C, D>,
): PluginManifest<T, C, D> {
  return manifest;
}

export type AnyPlugin = PluginManifest<any, any, any>;

/** A manifest's declared dependencies as [name, port] pairs. */
export function dependencyRefs(plugin: AnyPlugin): Array<[string, PortRef<unknown>]> {
  return Object.entries((plugin.dependsOn ?? {}) as Record<string, PortRef<unknown>>);
}
