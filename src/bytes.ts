/**
 * Bytes as the package's public types carry them (the web's Uint8Array, so a project without Node's
 * types compiles against them) read as Node's Buffer inside the package, in place: in Node they are
 * Buffers already, or stored Uint8Arrays that must not be copied.
 */

/** A Buffer over the same memory: no copy. */
export function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** A body as UTF-8 text, a byte order mark kept (as Buffer#toString does). */
export function textOf(body: string | Uint8Array): string {
  return typeof body === 'string' ? body : bufferOf(body).toString('utf8')
}
