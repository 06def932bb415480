import type { AnyOperation } from '../../../kernel/index.ts';
import { toolNameOf } from './tool-names.ts';

/** A JSON Schema object as MCP carries it (tool input and output schemas must be `type: object`). */
type JsonObjectSchema = {
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
  [k: string]: unknown;
};

/** One operation offered as an MCP tool: its tools/list entry and how its arguments become the input. */
export interface ToolEntry {
  readonly name: string;
  readonly def: AnyOperation;
  /** The tools/list entry (name, description, input and output schemas, annotations). */
  readonly listing: {
    name: string;
    title: string;
    description: string;
    inputSchema: JsonObjectSchema;
    outputSchema?: JsonObjectSchema;
    annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
  };
  /** True when the operation's `id` field (the key id) is the tool's `keyId` argument. */
  readonly keyIdArgument: boolean;
}

/** The input field that names a key (a path's `:id` over REST): a model reads `keyId` better than `id`. */
const KEY_FIELD = 'id';
const KEY_ARGUMENT = 'keyId';

/** A plain JSON copy of a TypeBox schema (TypeBox's symbol keys are dropped; the object is ours to edit). */
const plain = (schema: unknown): Record<string, unknown> =>
  JSON.parse(JSON.stringify(schema ?? {})) as Record<string, unknown>;

type Shape = {
  title?: string;
  properties?: Record<string, object>;
  required?: string[];
  additionalProperties?: unknown;
};

/**
 * One object whose fields are every shape's, required only where every shape requires them. A field two
 * shapes declare differently takes either declaration.
 */
function unionOf(shapes: Shape[]): { properties: Record<string, object>; required: string[] } {
  const declared = new Map<string, object[]>();
  for (const shape of shapes) {
    for (const [name, schema] of Object.entries(shape.properties ?? {})) {
      const seen = declared.get(name) ?? [];
      if (!seen.some((s) => JSON.stringify(s) === JSON.stringify(schema))) seen.push(schema);
      declared.set(name, seen);
    }
  }
  const properties: Record<string, object> = {};
  for (const [name, schemas] of declared) properties[name] = schemas.length === 1 ? schemas[0]! : { anyOf: schemas };
  const required = Object.keys(properties).filter((name) => shapes.every((shape) => shape.required?.includes(name)));
  return { properties, required };
}

/**
 * An input that takes one of several object shapes (one item, or a batch of items) as one object whose
 * fields are every shape's, required only where every shape requires them: tool schemas must be
 * objects, and a model fills named fields better than it picks an anyOf branch. The server still
 * validates the shapes, so a mix of them is refused with a message naming the field.
 */
function mergedShapes(schema: Record<string, unknown>): Record<string, unknown> {
  return { type: 'object', ...unionOf(schema.anyOf as Shape[]), additionalProperties: false };
}

/**
 * An answer of one of several object shapes (one item's, or a batch's) as one object that names every
 * shape's fields at the top level: a model reads what a tool returns from `properties`, and an anyOf
 * of shapes shows it none. The description says which fields come together; every answer of either
 * shape still validates (a field is required only when every shape has it).
 */
function mergedAnswers(schema: Record<string, unknown>): Record<string, unknown> {
  const shapes = schema.anyOf as Shape[];
  const fields = (shape: Shape) => `{${Object.keys(shape.properties ?? {}).join(', ')}}`;
  const description = `One of ${shapes.length} answers, matching the input's shape: ${shapes.map((shape) => (shape.title ? `${shape.title} ${fields(shape)}` : fields(shape))).join(' or ')}.`;
  const closed = shapes.every((shape) => shape.additionalProperties === false);
  const { properties, required } = unionOf(shapes);
  // An empty `required` is left out: older JSON Schema drafts that some clients use refuse one.
  return {
    type: 'object',
    description,
    properties,
    ...(required.length ? { required } : {}),
    ...(closed ? { additionalProperties: false } : {}),
  };
}

function inputSchemaOf(def: AnyOperation): { schema: JsonObjectSchema; keyIdArgument: boolean } {
  const declared = plain(def.input);
  const schema = (Array.isArray(declared.anyOf) ? mergedShapes(declared) : declared) as JsonObjectSchema;
  schema.type = 'object';
  delete schema.$id;
  const props = schema.properties;
  if (!props || !(KEY_FIELD in props)) return { schema, keyIdArgument: false };
  const renamed: Record<string, object> = {};
  for (const [name, value] of Object.entries(props)) renamed[name === KEY_FIELD ? KEY_ARGUMENT : name] = value;
  schema.properties = renamed;
  if (Array.isArray(schema.required))
    schema.required = schema.required.map((r) => (r === KEY_FIELD ? KEY_ARGUMENT : r));
  return { schema, keyIdArgument: true };
}

function outputSchemaOf(def: AnyOperation): JsonObjectSchema | undefined {
  let schema = plain(def.output);
  // One of several object answers (one item's, or a batch's) is one object naming all their fields.
  if (
    Array.isArray(schema.anyOf) &&
    (schema.anyOf as Array<{ type?: unknown }>).every((shape) => shape.type === 'object')
  )
    schema = mergedAnswers(schema);
  // MCP output schemas describe an object; an answer of another shape is still sent as text.
  if (schema.type !== 'object') return undefined;
  // A client may compile every tool's schemas in one validator, where an $id must be unique.
  delete schema.$id;
  return schema as JsonObjectSchema;
}

function toolOf(def: AnyOperation, name: string): ToolEntry {
  const { schema, keyIdArgument } = inputSchemaOf(def);
  const outputSchema = outputSchemaOf(def);
  const readOnly = def.attributes?.readOnly === true;
  const destructive = def.attributes?.destructive === true;
  const description = def.description ?? def.summary;
  return {
    name,
    def,
    keyIdArgument,
    listing: {
      name,
      title: def.summary,
      description,
      inputSchema: schema,
      ...(outputSchema ? { outputSchema } : {}),
      // MCP's defaults assume the worst (destructive, open world): both are said explicitly.
      annotations: {
        title: def.summary,
        readOnlyHint: readOnly,
        destructiveHint: !readOnly && destructive,
        openWorldHint: false,
      },
    },
  };
}

/**
 * Every tool the registry yields, built once at start: one per operation, named by `toolNameOf`. Two
 * operations that would get the same name stop the boot (a model cannot tell them apart).
 */
export class ToolCatalogue {
  private readonly byName = new Map<string, ToolEntry>();
  private readonly byOperation = new Map<string, ToolEntry>();

  constructor(operations: readonly AnyOperation[]) {
    for (const def of operations) {
      const name = toolNameOf(def);
      if (name === undefined) continue;
      const existing = this.byName.get(name);
      if (existing)
        throw new Error(
          `operations ${existing.def.id} and ${def.id} would both be the MCP tool ${name}; give one a toolName`,
        );
      const entry = toolOf(def, name);
      this.byName.set(name, entry);
      this.byOperation.set(def.id, entry);
    }
  }

  get(name: string): ToolEntry | undefined {
    return this.byName.get(name);
  }

  /** The tools of these operations (the ones a caller is permitted), in the registry's order. */
  of(operations: readonly AnyOperation[]): ToolEntry[] {
    const out: ToolEntry[] = [];
    for (const def of operations) {
      const entry = this.byOperation.get(def.id);
      if (entry) out.push(entry);
    }
    return out;
  }

  all(): ToolEntry[] {
    return [...this.byName.values()];
  }
}
