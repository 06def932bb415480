export { SvcClient, type SvcClientOptions } from './client.ts';
export { isSvcApiError, SvcApiError } from './errors.ts';
export { wrapKeyMaterial } from '../../schemas/key-wrapping.ts';
export type { ClientTls } from './tls-fetch.ts';
export type { CallOptions, Credentials, RetryOptions } from './transport.ts';
export type * from './types.ts';
export { isBatchItemError } from './batch-types.ts';
export type * from './batch-types.ts';
