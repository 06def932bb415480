import { DEFAULT_MAX_MESSAGE_BYTES } from './codec.ts';
import { ItemType, TtlvError } from './item.ts';

const HEADER = 8;

/**
 * The total length of the message whose first 8 bytes are `header`, or a TtlvError when those bytes
 * cannot start a KMIP message (not a structure, a length that is not a multiple of 8, or over the limit):
 * then the stream cannot be framed any more and the connection must be closed.
 */
export function frameLength(header: Buffer, maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES): number {
  if (header.length < HEADER) throw new TtlvError('a message header is 8 bytes');
  if (header[0] !== 0x42 && header[0] !== 0x54) throw new TtlvError('the message does not start with a KMIP tag');
  if (header[3] !== ItemType.Structure) throw new TtlvError('a KMIP message is a structure');
  const length = header.readUInt32BE(4);
  if (length % 8 !== 0) throw new TtlvError("a structure's length is a multiple of 8");
  if (HEADER + length > maxMessageBytes)
    throw new TtlvError(`the message claims ${HEADER + length} bytes; at most ${maxMessageBytes} are accepted`);
  return HEADER + length;
}

/**
 * Cuts a byte stream into whole messages. Only the 8-byte header is read before the length is checked,
 * so an over-size message is refused before its body is buffered; at most one message is held.
 */
export class Framer {
  private chunks: Buffer[] = [];
  private held = 0;
  private expected: number | undefined;

  constructor(private readonly maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES) {}

  /** Bytes received but not yet a whole message (a slow client's partial frame). */
  get pending(): number {
    return this.held;
  }

  /** Adds bytes; returns the whole messages they complete. Throws TtlvError when the stream cannot be framed. */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    this.chunks.push(chunk);
    this.held += chunk.length;
    for (;;) {
      if (this.expected === undefined) {
        if (this.held < HEADER) break;
        this.expected = frameLength(this.take(HEADER, false), this.maxMessageBytes);
      }
      if (this.held < this.expected) break;
      frames.push(this.take(this.expected, true));
      this.expected = undefined;
    }
    return frames;
  }

  /** The first n bytes held; consumed when `consume`. */
  private take(n: number, consume: boolean): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [all];
    if (!consume) return all.subarray(0, n);
    const frame = Buffer.from(all.subarray(0, n));
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.held = rest.length;
    return frame;
  }
}
