import {
  type AnyOperation,
  defineOperation,
  keyResource,
  namedResource,
  ownerOf,
  type Principal,
  SvcError,
} from '../../../kernel/index.ts';
import * as S from '../../../schemas/keys.ts';
import * as T from '../../../schemas/key-transfer.ts';
import { decodeBase64 } from '../base64.ts';
import { keyView } from '../key-lifecycle.ts';
import type { KeyExport } from '../key-export.ts';
import type { KeyImport } from '../key-import.ts';
import { changeScope } from './lifecycle.ts';
import { requirePublishRight } from '../published-tag.ts';
import { TRANSFER_DESCRIPTIONS } from './transfer-descriptions.ts';

const MATERIAL_REASON = 'it hands out or takes in raw key material, which an agent must never hold';
/**
 * Units of the caller's rate limit that import parameters take: each makes an RSA-3072 key pair (most
 * of a second of CPU, against well under a millisecond for most calls), so a caller asking in a loop
 * gets a fraction of the parameters its rate would give it otherwise.
 */
export const IMPORT_PARAMETERS_COST = 50;

/**
 * For key-scoped policy bindings: an import is a create, authorized on the key it would make (its
 * requested name, owned by the caller); import parameters name no key yet, so they are asked for as a
 * key the caller would own (`owner:self` and unscoped Create bindings grant them).
 */
const toBeOwned = (name: unknown, principal: Principal) => ({
  name: typeof name === 'string' ? name : '',
  owner: ownerOf(principal),
  ...(principal.kind === 'Service' && principal.tenant ? { tenant: principal.tenant } : {}),
});

/**
 * Export and import of key material. Agents are refused both whatever their scopes: material in an
 * agent's hands is out of the service's control, and an agent importing material it knows would make a
 * key that looks managed while its bytes are known outside. Neither is an MCP tool: material and import
 * tokens must not land in a model's context.
 */
export function transferOperations(exporter: KeyExport, importer: KeyImport): AnyOperation[] {
  return [
    defineOperation({
      id: 'ExportKey',
      description: TRANSFER_DESCRIPTIONS.ExportKey,
      operation: 'Export',
      group: 'Keys',
      summary: "Export an exportable key's material (Humans and Services only)",
      errors: ['KeyNotFound', 'IllegalOperation'],
      input: T.ExportKeyInput,
      output: T.ExportKeyResponse,
      http: { method: 'POST', path: '/v1/keys/:id/export' },
      resource: (input) => keyResource(input?.id),
      attributes: { agentsRefused: MATERIAL_REASON, toolName: false },
      // Marked on every record of the call that got past validation, refused ones included: detectors tell a material
      // read from a metadata read.
      inputFacts: (): Record<string, string> => ({ export: 'true' }),
      handle: async (input, call) => {
        const result = await exporter.export(input.id, input.version, call.trace);
        return { result, audit: { context: { keyVersion: String(result.keyVersion), format: result.format } } };
      },
    }),
    defineOperation({
      id: 'GetImportParameters',
      description: TRANSFER_DESCRIPTIONS.GetImportParameters,
      operation: 'Create',
      group: 'Keys',
      summary: 'A wrapping public key and a single-use token to import key material with',
      errors: ['TooManyRequests'],
      input: T.ImportParametersBody,
      output: T.ImportParametersResponse,
      http: { method: 'POST', path: '/v1/keys/import-parameters' },
      resource: (input) => namedResource('import:', input?.algorithm),
      attributes: { agentsRefused: MATERIAL_REASON, toolName: false },
      resourceFacts: async (_input, principal) => toBeOwned('', principal),
      cost: () => IMPORT_PARAMETERS_COST,
      handle: async (input, call) => {
        const { result, keyType } = await importer.parameters(input, call.principal.subject, call.trace);
        return { result, audit: { context: { keyType, expiresAt: result.expiresAt } } };
      },
    }),
    defineOperation({
      id: 'ImportKey',
      description: TRANSFER_DESCRIPTIONS.ImportKey,
      operation: 'Create',
      group: 'Keys',
      summary: 'Create a key from wrapped material (state PreActive, origin imported)',
      errors: ['InvalidField'],
      input: T.ImportKeyBody,
      output: S.ManagedKey,
      http: { method: 'POST', path: '/v1/keys/import', status: 201 },
      // Like a create: a refused import names the requested key name; a successful one, the new key id.
      resource: (input) => namedResource('name:', input?.spec?.name),
      attributes: { agentsRefused: MATERIAL_REASON, toolName: false },
      resourceFacts: async (input, principal) => toBeOwned(input?.spec?.name, principal),
      inputFacts: (): Record<string, string> => ({ origin: 'imported' }),
      handle: async (input, call) => {
        requirePublishRight(input.spec.tags, call);
        const wrapped = decodeBase64(input.wrappedMaterialBase64, 'wrappedMaterialBase64');
        return { result: keyView(await importer.import(input.spec, input.importToken, wrapped, changeScope(call))) };
      },
    }),
    defineOperation({
      id: 'ImportKeyMaterial',
      description: TRANSFER_DESCRIPTIONS.ImportKeyMaterial,
      operation: 'Create',
      group: 'Keys',
      summary: 'Import material into a key made to await it',
      errors: ['InvalidField', 'KeyNotFound', 'IllegalOperation'],
      input: T.ImportMaterialInput,
      output: S.ManagedKey,
      http: { method: 'POST', path: '/v1/keys/:id/import' },
      resource: (input) => keyResource(input?.id),
      attributes: { agentsRefused: MATERIAL_REASON, toolName: false },
      inputFacts: (): Record<string, string> => ({ origin: 'imported' }),
      handle: async (input, call) => {
        const wrapped = decodeBase64(input.wrappedMaterialBase64, 'wrappedMaterialBase64');
        const facts = await importer.factsOf(input.id);
        // The material decides who can read everything the key will protect: only its owner brings it.
        if (facts && facts.owner !== ownerOf(call.principal))
          throw new SvcError(
            'PermissionDenied',
            `only the owner of key ${input.id} (${facts.owner}) imports its material`,
          );
        if (input.activate && !call.permits('Activate', keyResource(input.id), facts))
          throw new SvcError(
            'PermissionDenied',
            `${call.principal.subject} may import material but not activate the key`,
          );
        const key = await importer.importInto(
          input.id,
          input.importToken,
          wrapped,
          changeScope(call),
          input.activate === true,
        );
        return { result: keyView(key) };
      },
    }),
  ];
}
