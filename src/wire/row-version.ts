/**
 * TIMESTAMP as the wire carries it in read results: base64 of the row version as an 8-byte
 * big-endian integer (the mock's choice, see docs/behaviour.md). Save and delete take the plain integer.
 * Versions stay below 2^53 so they survive JSON numbers and JavaScript arithmetic.
 */

const TWO_32 = 2 ** 32
const BASE64_OF_8_BYTES = /^[A-Za-z0-9+/]{11}=$/

/** base64 of `n` as 8 big-endian bytes; throws on a value no row version can have (a bug, not input). */
export function encodeRowVersion(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`row version must be a safe non-negative integer, got ${n}`)
  const bytes = Buffer.allocUnsafe(8)
  bytes.writeUInt32BE(Math.floor(n / TWO_32), 0)
  bytes.writeUInt32BE(n % TWO_32, 4)
  return bytes.toString('base64')
}

/**
 * The row version inside a TIMESTAMP text, or null when the text is not the canonical base64 of
 * 8 bytes or holds a value of 2^53 or more.
 */
export function decodeRowVersion(text: string): number | null {
  if (!BASE64_OF_8_BYTES.test(text)) return null
  const bytes = Buffer.from(text, 'base64')
  if (bytes.length !== 8) return null
  const high = bytes.readUInt32BE(0)
  // 2^53 = 2^21 * 2^32: anything with high >= 2^21 is beyond Number.MAX_SAFE_INTEGER.
  if (high >= 2 ** 21) return null
  const n = high * TWO_32 + bytes.readUInt32BE(4)
  // Node's decoder ignores stray low bits in the last character; only the canonical text counts.
  return encodeRowVersion(n) === text ? n : null
}
