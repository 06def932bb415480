import path from 'node:path';
import { Type, type Static, type TBoolean, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { DEFAULT_DELIVERY, type DeliverySettings } from '../../../kernel/index.ts';

/**
 * Configuration every secondary audit sink kind shares. One sink of each kind comes from its section's
 * settings (its SVC_AUDIT_<KIND>_* variables, named after the kind); any number come from the config
 * file's `audit.sinks` list, each entry `{kind, name, enabled, ...that kind's settings}` in the same
 * camelCase keys. The section is declared once: an entry's schema is made from it (sinkEntrySchema).
 */
export const auditSinks = Type.Array(Type.Unknown(), {
  description:
    'Secondary audit sinks, each {kind: webhook | log-stream | ' +
    'message-stream, name, enabled (default true; false: not started), ' +
    '...settings of that kind} (config file only).',
  default: [],
  env: false,
});

/**
 * What an `audit.sinks` entry checks of one of its kind's settings beyond the setting's own schema:
 * `'required'` (no default: an entry must name it), or JSON Schema keywords that narrow it. The variables
 * are read by their type alone; the environment's sink, once enabled, is checked as an entry too.
 */
export type SinkEntryRule = 'required' | { minimum?: number; minLength?: number; pattern?: string };

const SINK_ENTRY = Symbol('sinkEntry');

/** `setting`, checked further by `rule` in an `audit.sinks` entry (and in the environment's enabled sink). */
export function inEntries<T extends TSchema>(rule: SinkEntryRule, setting: T): T {
  return { ...setting, [SINK_ENTRY]: rule };
}

/**
 * The retry, queue and dead-letter settings of one kind's section; `envPrefix` when its variables are not named after
 * the section.
 */
export function deliverySettings(defaults: { batchSize: number; concurrency: number }, envPrefix?: string) {
  const env = (name: string) => (envPrefix ? { env: `${envPrefix}_${name}` } : {});
  const atLeastOne = { minimum: 1 };
  return {
    maxRetries: Type.Integer({
      minimum: 0,
      description: 'Retries of a failed delivery before the dead letter.',
      default: DEFAULT_DELIVERY.maxRetries,
      ...env('MAX_RETRIES'),
    }),
    initialBackoffMs: inEntries(
      atLeastOne,
      Type.Integer({
        minimum: 0,
        description: 'Wait before the first retry; doubles each retry.',
        default: DEFAULT_DELIVERY.initialBackoffMs,
        ...env('INITIAL_BACKOFF_MS'),
      }),
    ),
    maxBackoffMs: inEntries(
      atLeastOne,
      Type.Integer({
        minimum: 0,
        description: 'Longest wait between retries.',
        default: DEFAULT_DELIVERY.maxBackoffMs,
        ...env('MAX_BACKOFF_MS'),
      }),
    ),
    deadLetterFile: Type.String({
      description: 'JSONL file of undeliverable events; empty: <node.dataDir>/audit-<name>.deadletter.jsonl.',
      default: '',
      ...env('DEAD_LETTER_FILE'),
    }),
    queueCapacity: inEntries(
      atLeastOne,
      Type.Integer({
        minimum: 0,
        description: 'Events waiting at most; beyond it an event goes to the dead letter at once.',
        default: DEFAULT_DELIVERY.queueCapacity,
        ...env('QUEUE_CAPACITY'),
      }),
    ),
    batchSize: inEntries(
      atLeastOne,
      Type.Integer({
        minimum: 0,
        description: 'Events per delivery round trip at most.',
        default: defaults.batchSize,
        ...env('BATCH_SIZE'),
      }),
    ),
    concurrency: inEntries(
      atLeastOne,
      Type.Integer({
        minimum: 0,
        description:
          'Deliveries in flight at once (above 1, events of different requests ' +
          "may arrive out of order; one request's events stay in order).",
        default: defaults.concurrency,
        ...env('CONCURRENCY'),
      }),
    ),
  };
}

export const SinkName = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' });

/** A kind's section: its `enabled` switch for the environment's sink, and the settings every sink of the kind has. */
export type SinkSection = TObject<TProperties & { enabled: TBoolean }>;

/** A sink's settings as its kind's `build` receives them: the section's, without `enabled`, and its name. */
export type SinkEntry<S extends SinkSection> = Omit<Static<S>, 'enabled'> & { name: string };

/**
 * Keywords of a setting that are the configuration loader's (variable, redaction, docs, its own formats), not an
 * entry's check.
 */
const LOADER_KEYWORDS = ['description', 'env', 'sensitive', 'format'];

/** One setting of a section as an entry checks it: its JSON Schema type and default, narrowed by its SinkEntryRule. */
function entrySetting(setting: TSchema): TSchema {
  const check: TSchema & { [SINK_ENTRY]?: SinkEntryRule } = { ...setting };
  for (const keyword of LOADER_KEYWORDS) delete check[keyword];
  const rule = check[SINK_ENTRY];
  delete check[SINK_ENTRY];
  if (rule === 'required') delete check.default;
  else Object.assign(check, rule);
  return check;
}

/**
 * The JSON Schema of an `audit.sinks` entry of `kind`: its kind and name, `enabled` (default true), and
 * every other setting of the kind's section, in the section's order.
 */
export function sinkEntrySchema(kind: string, section: SinkSection): TObject {
  const settings = Object.fromEntries(
    Object.entries(section.properties).flatMap(([key, setting]) =>
      key === 'enabled' ? [] : [[key, entrySetting(setting)]],
    ),
  );
  return Type.Object(
    { kind: Type.Literal(kind), name: SinkName, enabled: Type.Boolean({ default: true }), ...settings },
    { additionalProperties: false },
  );
}

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

/** Where one kind's sinks are configured: its section's values (variables `<prefix>_*`) and the `audit.sinks` list. */
export interface SinkSources<S extends SinkSection> {
  section: Readonly<Static<S>>;
  prefix: string;
  sinks: readonly unknown[];
}

/**
 * The instances of one sink kind: the environment-configured one when its section's `enabled` is true
 * (its `<prefix>_ENABLED` flag), then every `audit.sinks` entry of this kind, each checked against the
 * kind's entry schema (defaults filled in) and then by `build`, whose complaint fails the boot. An entry
 * may say `enabled: false` (every kind has the setting, as its variables have `_ENABLED`): it is still
 * checked against the schema, so a typo is found before it is switched on, but is not started, and its
 * required settings may stay empty.
 */
export function sinkInstances<S extends SinkSection, C>(
  kind: string,
  section: S,
  sources: SinkSources<S>,
  build: (entry: SinkEntry<S>, where: string) => C,
): Array<{ name: string; config: C }> {
  const schema = sinkEntrySchema(kind, section);
  const valid = ajv.compile(schema);
  // A switched-off entry need not carry its required settings yet, but may not carry wrong ones.
  const validOff = ajv.compile(
    Type.Composite([Type.Partial(schema), Type.Object({ enabled: Type.Literal(false) })], {
      additionalProperties: false,
    }),
  );
  const entries: Array<{ where: string; entry: Record<string, unknown> }> = [];
  const { enabled, ...env } = sources.section as Record<string, unknown>;
  if (enabled === true) entries.push({ where: `audit (env ${sources.prefix}_*)`, entry: { kind, name: kind, ...env } });
  sources.sinks.forEach((e, i) => {
    if (e && typeof e === 'object' && (e as { kind?: unknown }).kind === kind)
      entries.push({ where: `audit.sinks[${i}]`, entry: { ...(e as Record<string, unknown>) } });
  });
  return entries.flatMap(({ where, entry }) => {
    const check = entry.enabled === false ? validOff : valid;
    if (!check(entry)) {
      const err = check.errors![0]!;
      const at = err.instancePath
        ? err.instancePath.slice(1)
        : err.keyword === 'additionalProperties'
          ? String(err.params.additionalProperty)
          : '';
      throw new Error(
        `${where} (${kind} sink): ${at ? `${at} ` : ''}${err.keyword === 'additionalProperties' ? 'is not a setting of this kind' : err.message}`,
      );
    }
    if (entry.enabled === false) return [];
    delete entry.enabled;
    const typed = entry as SinkEntry<S>;
    return [{ name: typed.name, config: build(typed, where) }];
  });
}
