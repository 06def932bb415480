import type { TSchema } from '@sinclair/typebox';

/**
 * The document's named schemas: every schema with a `title` becomes `#/components/schemas/<title>` and
 * is referred to, nested ones included, so generated clients get one named type per shape. Two
 * different schemas under one title are a programming error, reported at boot.
 */
export class SchemaComponents {
  readonly schemas: Record<string, unknown> = {};
  private readonly texts = new Map<string, string>();

  /** The schema as a reference when it has (or is given) a title, else inline with its nested titles referenced. */
  use(schema: TSchema | Record<string, unknown>, title?: string): unknown {
    // TypeBox marks its schemas with symbol keys; a JSON round trip leaves plain JSON Schema.
    const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
    const named = title ?? (typeof plain.title === 'string' ? plain.title : undefined);
    if (named === undefined) return this.walk(plain);
    return this.register(named, { ...plain, title: named });
  }

  private register(title: string, schema: Record<string, unknown>): unknown {
    const { title: _, ...rest } = schema;
    const body = this.walkChildren(rest);
    const text = JSON.stringify(body);
    const seen = this.texts.get(title);
    if (seen !== undefined && seen !== text)
      throw new Error(`OpenAPI: two different schemas are both titled "${title}"`);
    this.texts.set(title, text);
    this.schemas[title] = body;
    return { $ref: `#/components/schemas/${encodeURIComponent(title)}` };
  }

  private walk(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.walk(n));
    if (node === null || typeof node !== 'object') return node;
    const schema = node as Record<string, unknown>;
    if (typeof schema.title === 'string' && (schema.type !== undefined || schema.anyOf !== undefined))
      return this.register(schema.title, schema);
    return this.walkChildren(schema);
  }

  private walkChildren(schema: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(schema)) {
      // `properties` maps field names to schemas: walk each value, never treat the map as a schema.
      out[key] =
        key === 'properties' && value && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).map(([name, s]) => [name, this.walk(s)]))
          : this.walk(value);
    }
    return out;
  }
}
