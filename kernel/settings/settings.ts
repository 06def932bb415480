import { Kind, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';

/** The values of a settings declaration as the plugin receives them (validated, defaults applied, frozen). */
export type SettingsOf<S extends TSchema> = Readonly<Static<S>>;

/**
 * Declares a plugin's settings: one TypeBox object rooted at the configuration's top, whose nested objects
 * are its sections (`{audit: {webhook: {url, secret, ...}}}` is the section `audit.webhook`). From this one
 * declaration come the config-file keys, the `SVC_*` variables, docs/config.md, `--print-config`'s
 * redaction and the typed values the plugin receives. A setting's schema carries JSON Schema's
 * `description` and `default` (both required), and may carry:
 * - `env`: its variable's name when it is not `SVC_` + the upper snake case of its path
 *   (`rateLimit.requestsPerSecond` reads `SVC_RATE_LIMIT_RPS`), or `false` for a file-only setting;
 * - `sensitive: true`: never printed (`--print-config`, docs defaults, error messages);
 * - `format`: `outbound-url` (empty, or a URL that may carry keys, tokens or audit data: https://, or
 *   http:// only to a loopback host) or `whole-number-or-auto`, checked at boot with the setting's key.
 * Two plugins may declare the very same setting object (the SQL connection a journal and an audit store
 * share), never two different settings of one key. This identity helper keeps the declaration's literal types.
 */
export function defineSettings<P extends TProperties>(settings: TObject<P>): TObject<P> {
  return settings;
}

/** True for a nested object of settings (a section), false for one setting. */
export function isSection(schema: TSchema): schema is TObject {
  return schema[Kind] === 'Object' && schema.description === undefined && schema.default === undefined;
}

/** `SVC_` + the upper snake case of a dotted path: `crypto.cloudKms.endpoint` -> `SVC_CRYPTO_CLOUD_KMS_ENDPOINT`. */
export function variableOf(path: string): string {
  return `SVC_${path
    .split('.')
    .map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase())
    .join('_')}`;
}

/** The variable that sets one setting, or undefined for a file-only one. */
export function settingVariable(path: string, setting: TSchema): string | undefined {
  const env = (setting as { env?: string | false }).env;
  return env === false ? undefined : (env ?? variableOf(path));
}

/** Every setting of a declaration as [dotted path, schema], in declaration order. */
export function settingLeaves(settings: TObject, prefix = ''): Array<[string, TSchema]> {
  return Object.entries(settings.properties).flatMap(([key, schema]) => {
    const at = prefix ? `${prefix}.${key}` : key;
    return isSection(schema) ? settingLeaves(schema, at) : [[at, schema] as [string, TSchema]];
  });
}

/**
 * The part of the whole validated configuration a declaration covers, frozen: what the kernel hands to
 * the plugin that declared it, and nothing else.
 */
export function pickSettings<S extends TObject>(settings: S, all: Record<string, unknown>): SettingsOf<S> {
  const pick = (schema: TObject, from: Record<string, unknown>): Record<string, unknown> =>
    Object.freeze(
      Object.fromEntries(
        Object.entries(schema.properties).map(([key, child]) => [
          key,
          isSection(child) ? pick(child, (from[key] ?? {}) as Record<string, unknown>) : from[key],
        ]),
      ),
    );
  return pick(settings, all) as SettingsOf<S>;
}
