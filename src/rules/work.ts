/**
 * Work that may pause, and the two ways to run it: a generator that yields where a slice of it may
 * end (a pattern's match, a rule's decision, an expression's automaton) and returns its result.
 * Run at once by a caller that cannot wait (the library's in-process calls, small inputs), or in
 * slices with a turn of the event loop between them by the mock's request path, so other clients
 * are answered while one request's work goes on.
 */

/** Work that may pause: it yields where a slice may end, and returns its result. */
export type Work<T> = Generator<void, T, void>

/** Runs work to its end at once, pausing nowhere. */
export function runAtOnce<T>(work: Work<T>): T {
  for (;;) {
    const step = work.next()
    if (step.done === true) return step.value
  }
}

/**
 * Runs work in slices of at most `sliceMs` (checked at each point where it may pause), with a turn
 * of the event loop between them: the result itself when it took one slice, else a promise of it.
 */
export function runSliced<T>(work: Work<T>, sliceMs: number): T | Promise<T> {
  const slice = (): { done: true; value: T } | { done: false } => {
    const started = performance.now()
    for (;;) {
      const step = work.next()
      if (step.done === true) return step
      if (performance.now() - started >= sliceMs) return { done: false }
    }
  }
  const first = slice()
  if (first.done) return first.value
  return new Promise<T>((resolve, reject) => {
    const next = (): void => {
      try {
        const step = slice()
        if (step.done) resolve(step.value)
        else setImmediate(next)
      } catch (error) {
        reject(error)
      }
    }
    setImmediate(next)
  })
}
