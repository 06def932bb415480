import path from 'node:path';
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { DEFAULT_DELIVERY, type DeliverySettings } from '../../../kernel/index.ts';

/**
 * Configuration every secondary audit sink kind shares. One sink of each kind comes from its
 * SVC_AUDIT_<KIND>_* variables (named after the kind); any number come from the config file's
 * `audit.sinks` list, each entry `{kind, name, ...that kind's settings}` in the same camelCase keys.
 */
export const auditSinksLeaf = {
  doc: 'Secondary audit sinks, each {kind: webhook | log-stream | message-stream, name, enabled (default true; false: not started), ...settings of that kind} (config file only).',
  format: Array,
  default: [],
};

/** The retry, queue and dead-letter settings of one kind's environment-configured sink. */
export function deliveryLeaves(envPrefix: string, defaults: { batchSize: number; concurrency: number }) {
  return {
    maxRetries: { doc: 'Retries of a failed delivery before the dead letter.', format: 'nat', default: DEFAULT_DELIVERY.maxRetries, env: `${envPrefix}_MAX_RETRIES` },
    initialBackoffMs: { doc: 'Wait before the first retry; doubles each retry.', format: 'nat', default: DEFAULT_DELIVERY.initialBackoffMs, env: `${envPrefix}_INITIAL_BACKOFF_MS` },
    maxBackoffMs: { doc: 'Longest wait between retries.', format: 'nat', default: DEFAULT_DELIVERY.maxBackoffMs, env: `${envPrefix}_MAX_BACKOFF_MS` },
    deadLetterFile: { doc: 'JSONL file of undeliverable events; empty: <node.dataDir>/audit-<name>.deadletter.jsonl.', format: String, default: '', env: `${envPrefix}_DEAD_LETTER_FILE` },
    queueCapacity: { doc: 'Events waiting at most; beyond it an event goes to the dead letter at once.', format: 'nat', default: DEFAULT_DELIVERY.queueCapacity, env: `${envPrefix}_QUEUE_CAPACITY` },
    batchSize: { doc: 'Events per delivery round trip at most.', format: 'nat', default: defaults.batchSize, env: `${envPrefix}_BATCH_SIZE` },
    concurrency: { doc: 'Deliveries in flight at once (above 1, events of different requests may arrive out of order; one request\'s events stay in order).', format: 'nat', default: defaults.concurrency, env: `${envPrefix}_CONCURRENCY` },
  };
}

const Nat = (def: number, min = 0) => Type.Integer({ minimum: min, default: def });

/** The same settings as an `audit.sinks` entry's JSON Schema, with the kind's defaults. */
export function deliveryProperties(defaults: { batchSize: number; concurrency: number }) {
  return {
    maxRetries: Nat(DEFAULT_DELIVERY.maxRetries),
    initialBackoffMs: Nat(DEFAULT_DELIVERY.initialBackoffMs, 1),
    maxBackoffMs: Nat(DEFAULT_DELIVERY.maxBackoffMs, 1),
    deadLetterFile: Type.String({ default: '' }),
    queueCapacity: Nat(DEFAULT_DELIVERY.queueCapacity, 1),
    batchSize: Nat(defaults.batchSize, 1),
    concurrency: Nat(defaults.concurrency, 1),
  };
}

export const SinkName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' });

type DeliveryFields = Omit<DeliverySettings, 'deadLetterFile'> & { deadLetterFile: string };

/** The kernel's delivery settings from an entry; a relative or empty dead-letter path lands under node.dataDir. */
export function deliveryOf(entry: DeliveryFields, name: string, dataDir: string): DeliverySettings {
  const file = entry.deadLetterFile || path.join(dataDir, `audit-${name}.deadletter.jsonl`);
  return {
    maxRetries: entry.maxRetries,
    initialBackoffMs: Math.max(1, entry.initialBackoffMs),
    maxBackoffMs: Math.max(1, entry.maxBackoffMs),
    deadLetterFile: path.resolve(file),
    queueCapacity: Math.max(1, entry.queueCapacity),
    batchSize: Math.max(1, entry.batchSize),
    concurrency: Math.max(1, entry.concurrency),
  };
}

const ajv = new Ajv({ strict: false, useDefaults: true, allErrors: false });

export interface SinkConfigSources {
  audit: { sinks: unknown[] };
  node: { dataDir: string };
}

/**
 * The instances of one sink kind: the environment-configured one when `env.entry` is given (it is when
 * its `<prefix>_ENABLED` flag is true), then every `audit.sinks` entry of this kind, each checked against the kind's
 * schema (defaults filled in) and then by `build`, whose complaint fails the boot. An entry may say
 * `enabled: false` (every kind has the setting, as its variables have `_ENABLED`): it is still checked
 * against the schema, so a typo is found before it is switched on, but is not started, and its required
 * settings may stay empty.
 */
export function sinkInstances<P extends TProperties, C>(
  kind: string,
  all: SinkConfigSources,
  env: { prefix: string; entry: Record<string, unknown> | undefined },
  properties: P,
  build: (entry: Static<TObject<P>> & { name: string }, where: string) => C,
): Array<{ name: string; config: C }> {
  const schema = Type.Object({ kind: Type.Literal(kind), name: SinkName, enabled: Type.Boolean({ default: true }), ...properties }, { additionalProperties: false });
  const valid = ajv.compile(schema);
  // A switched-off entry need not carry its required settings yet, but may not carry wrong ones.
  const validOff = ajv.compile(Type.Composite([Type.Partial(schema), Type.Object({ enabled: Type.Literal(false) })], { additionalProperties: false }));
  const entries: Array<{ where: string; entry: Record<string, unknown> }> = [];
  if (env.entry) entries.push({ where: `audit (env ${env.prefix}_*)`, entry: { kind, name: kind, ...env.entry } });
  all.audit.sinks.forEach((e, i) => {
    if (e && typeof e === 'object' && (e as { kind?: unknown }).kind === kind) entries.push({ where: `audit.sinks[${i}]`, entry: { ...(e as Record<string, unknown>) } });
  });
  return entries.flatMap(({ where, entry }) => {
    const check = entry.enabled === false ? validOff : valid;
    if (!check(entry)) {
      const err = check.errors![0]!;
      const at = err.instancePath ? err.instancePath.slice(1) : err.keyword === 'additionalProperties' ? String(err.params.additionalProperty) : '';
      throw new Error(`${where} (${kind} sink): ${at ? `${at} ` : ''}${err.keyword === 'additionalProperties' ? 'is not a setting of this kind' : err.message}`);
    }
    if (entry.enabled === false) return [];
    delete entry.enabled;
    const typed = entry as Static<TObject<P>> & { name: string };
    return [{ name: typed.name, config: build(typed, where) }];
  });
}
