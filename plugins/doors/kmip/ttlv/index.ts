/** A strict TTLV codec for KMIP: decoding, encoding, stream framing and the numbers of tags and enumerations. */
export * from './item.ts';
export { decodeTtlv, encodeTtlv, DEFAULT_MAX_DEPTH, DEFAULT_MAX_MESSAGE_BYTES, type DecodeLimits } from './codec.ts';
export { Framer, frameLength } from './framer.ts';
export * as K from './tables.ts';
