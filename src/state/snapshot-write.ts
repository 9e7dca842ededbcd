/**
 * Writing a snapshot to a temporary file beside the state file, flushed to the disk: all at once
 * (at start, at stop, for `saveState()` and the in-process `reset()`), or a slice at a time with
 * the file's writes and its flush off the event loop (the interval's snapshots, and resets and
 * fixture loads over HTTP), so the clients beside it are answered meanwhile.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs'
import { removeFile } from './change-log.ts'
import { open } from 'node:fs/promises'
import { encodeSnapshot } from './snapshot-format.ts'
import type { DataImage } from '../store/image.ts'

/** Temporary names beside the state file, one per write under way: two writes never share one. */
export class TemporaryNames {
  readonly #taken = new Set<string>()

  /** `${path}.<pid>.tmp`, or another such name when a write under way has it. */
  take(path: string): string {
    let name = `${path}.${process.pid}.tmp`
    for (let n = 2; this.#taken.has(name); n++) name = `${path}.${process.pid}-${n}.tmp`
    this.#taken.add(name)
    return name
  }

  release(name: string): void {
    this.#taken.delete(name)
  }
}

/** The image as a snapshot in `temporary`, written all at once and flushed to the disk; on failure removed, and the error thrown. */
export function writeSnapshotSync(temporary: string, image: DataImage, id: string): void {
  let fd: number | undefined
  try {
    fd = openSync(temporary, 'w')
    for (const piece of encodeSnapshot(image, id, new Date())) {
      let offset = 0
      while (offset < piece.length) offset += writeSync(fd, piece, offset)
    }
    fsyncSync(fd)
    closeSync(fd)
    fd = undefined
  } catch (error) {
    if (fd !== undefined) closeSync(fd)
    removeFile(temporary)
    throw error
  }
}

/** Thrown by a write in slices that was told to stop (`cancelled`). */
export class WriteCancelled extends Error {
  constructor() {
    super('snapshot given up')
  }
}

/**
 * The image as a snapshot in `temporary`, encoded a slice at a time (about `sliceMs` of the event
 * loop each); each slice's bytes are written, and the file flushed at the end, by the thread pool,
 * while the loop serves other clients. Checks `cancelled` between slices. On failure the file is
 * removed and the error thrown.
 */
export async function writeSnapshotInSlices(
  temporary: string,
  image: DataImage,
  id: string,
  options: { sliceMs: number; pause: () => Promise<void>; cancelled: () => boolean },
): Promise<void> {
  const handle = await open(temporary, 'w')
  try {
    const pieces = encodeSnapshot(image, id, new Date())
    for (let done = false; !done; ) {
      if (options.cancelled()) throw new WriteCancelled()
      const slice: Buffer[] = []
      const until = performance.now() + options.sliceMs
      for (;;) {
        const next = pieces.next()
        if (next.done === true) {
          done = true
          break
        }
        slice.push(next.value)
        if (performance.now() >= until) break
      }
      const bytes = slice.length === 1 ? (slice[0] as Buffer) : Buffer.concat(slice)
      for (let offset = 0; offset < bytes.length; ) offset += (await handle.write(bytes, offset)).bytesWritten
      // A turn for the clients even when the disk answers at once.
      await options.pause()
    }
    if (options.cancelled()) throw new WriteCancelled()
    await handle.sync()
    await handle.close()
  } catch (error) {
    await handle.close().catch(() => undefined)
    removeFile(temporary)
    throw error
  }
}
