/** What a store's sliced writes take: the command, the pause between slices, the slice's budget. */
type SlicedWrite = (cmd: never, pause: () => Promise<void>, sliceMs: number) => unknown

/**
 * Watches the pauses of a store's sliced writes (`saveInSlices`, `deleteInSlices`) in a race test:
 * a reset sent when they have paused `resetAt` times in all (none for null), and `next()` resolving
 * at every 64th pause, when the test reads (a read between every two slices made a race last
 * seconds). `restore()` puts the store's own method back.
 */
export function watchPauses<K extends string>(
  store: Record<K, unknown>,
  method: K,
  sendReset: () => Promise<unknown>,
  resetAt: number | null,
): { reset(): Promise<unknown>; next(): Promise<void>; restore(): void } {
  const original = store[method] as SlicedWrite
  let pauses = 0
  let reset: Promise<unknown> = Promise.resolve()
  let paused: () => void = () => {}
  let nextPauses = new Promise<void>((resolve) => (paused = resolve))
  store[method] = ((cmd: never, pause: () => Promise<void>, sliceMs: number) =>
    original.call(
      store,
      cmd,
      async () => {
        if (++pauses === resetAt) reset = sendReset()
        if (pauses % 64 === 0) {
          paused()
          nextPauses = new Promise<void>((resolve) => (paused = resolve))
        }
        await pause()
      },
      sliceMs,
    )) as Record<K, unknown>[K]
  return { reset: () => reset, next: () => nextPauses, restore: () => (store[method] = original as Record<K, unknown>[K]) }
}
