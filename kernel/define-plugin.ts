import type { TObject } from '@sinclair/typebox';
import type { Clock } from './ports/clock.ts';
import type { Logger } from './ports/logger.ts';
import type { PortRef } from './ports/port-ref.ts';
import type { PreflightNode } from './preflight.ts';
import type { Deployment } from './settings/deployment.ts';
import type { SettingsOf } from './settings/settings.ts';

/**
 * Bumped when the manifest shape or a port changes incompatibly (2: the journal's node registry and
 * background erasure, the agent registry's jti lookups; 3: settings declared as one TypeBox schema,
 * `configure` instead of `configSlice`); third-party plugins declare the version they were built for,
 * and the loader refuses another one.
 */
export const KERNEL_API_VERSION = 3;

type Deps<D extends Record<string, PortRef<unknown>>> = {
  [K in keyof D]: D[K] extends PortRef<infer T> ? (D[K]['multiple'] extends true ? T[] : T) : never;
};

export interface PluginContext<C, D extends Record<string, PortRef<unknown>>> {
  /** What `configure` (or `instances`) made of this plugin's settings; without them, its settings as declared. */
  config: C;
  deps: Deps<D>;
  logger: Logger;
  clock: Clock;
}

/**
 * A plugin manifest. Importing the module that exports it must do nothing; `create` builds the
 * implementation without I/O; resources are acquired in the implementation's own `start()`.
 */
export interface PluginManifest<
  T = unknown,
  C = unknown,
  D extends Record<string, PortRef<unknown>> = Record<string, PortRef<unknown>>,
  S extends TObject = TObject,
> {
  id: string;
  apiVersion: number;
  provides: PortRef<T>;
  /** The config value that selects this plugin for its port (journal.kind: rdb-embedded, ...). */
  kind?: string;
  description: string;
  dependsOn?: D;
  /** This plugin's settings, declared once (kernel/settings/settings.ts says how). */
  settings?: S;
  /**
   * Turns this plugin's validated settings, and the facts of the deployment, into what `create` and
   * `preflight` receive; throws a sentence naming the setting when a combination is wrong.
   */
  configure?(settings: SettingsOf<S>, deployment: Deployment): C;
  /**
   * On a multiple port only: one instance per entry (several webhooks in audit.sinks), each built by
   * `create` from its own config; names tell the instances apart (`<id>:<name>` in the container).
   * Without it the plugin has one instance, from `configure`.
   */
  instances?(settings: SettingsOf<S>, deployment: Deployment): Array<{ name: string; config: C }>;
  /** Checks over config alone, run before anything starts. */
  preflight?(config: C, env: PreflightEnv): PreflightNode[];
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
export function definePlugin<
  T,
  S extends TObject = TObject,
  // Without `configure`, `create` receives the settings themselves.
  C = SettingsOf<S>,
  D extends Record<string, PortRef<unknown>> = Record<string, never>,
>(manifest: PluginManifest<T, C, D, S>): PluginManifest<T, C, D, S> {
  return manifest;
}

/**
 * A manifest as the kernel holds it in one list with others: each was checked where it was written, by
 * definePlugin; its methods are declared as methods so that a manifest of specific types still fits.
 */
export type AnyPlugin = PluginManifest<unknown, unknown, Record<string, PortRef<unknown>>, TObject>;

/** A manifest's declared dependencies as [name, port] pairs. */
export function dependencyRefs(plugin: AnyPlugin): Array<[string, PortRef<unknown>]> {
  return Object.entries((plugin.dependsOn ?? {}) as Record<string, PortRef<unknown>>);
}
