/**
 * A JSON answer as ready UTF-8 bytes: views of the store's arenas and the brackets and commas
 * between them, in order, and their total length. The mock writes the pieces as they are (one
 * system call for all of them); `body` joins them into one buffer, a copy, for whoever needs one.
 * Typed as the web's bytes: the package's public types reach the store's interface.
 */
export class ReadyBytes {
  constructor(
    readonly chunks: readonly Uint8Array[],
    readonly length: number,
  ) {}

  /** The answer as one buffer (a copy of the pieces, made when asked for). */
  get body(): Uint8Array {
    return this.chunks.length === 1 ? (this.chunks[0] as Uint8Array) : Buffer.concat(this.chunks, this.length)
  }
}
