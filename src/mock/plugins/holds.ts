import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError } from '../../errors.ts'
import { endUnanswered } from './journal.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests a rule holds for a while (a fault's latency, an answer rule's `delayMs`). */
    holds: Holds
  }
}

/** How a held request goes on when its hold ends; each is called at most once, and only one of them. */
export interface HoldEnds {
  /** The wait is over: the request goes on (the fault acts, the answer rule answers or lets the handler run). */
  release(): void
  /** The hold was ended with a refusal (a reset or fixture load: 503 DATA_REPLACED). */
  refuse(error: ProblemError): void
  /** The request is taken out of Fastify's way with no answer (the reply is hijacked first): its client left, or the mock closes. */
  stop(): void
}

/**
 * Requests held by a rule's wait. Each is the only kind of request that pays for a listener of its
 * own (its connection's `close`), so a client that gives up on a held request is noticed at once:
 * the exchange is journaled with `abandoned: true` and nothing of it is performed. A request without
 * a rule pays nothing here (the journal finds the rare abandoned one only when asked,
 * src/journal/journal.ts).
 */
export interface Holds {
  /** Holds a request `ms` milliseconds, then `ends.release()`, unless its client leaves, or all holds end, first. */
  hold(request: FastifyRequest, reply: FastifyReply, ms: number, ends: HoldEnds): void
  /**
   * Ends every hold with a 503 DATA_REPLACED problem: a reset or fixture load is a clean cut, and a
   * request received before it is answered at once rather than performed on the data it brought.
   * Returns how many there were.
   */
  refuseAll(reason: string): number
  /** Cuts every hold: its connection closed with no answer, nothing of it performed (a close whose grace is over). */
  cutAll(): void
  /** How many requests are held now. */
  readonly size: number
}

interface Held {
  timer: NodeJS.Timeout
  end(how: 'release' | 'gone' | 'cut' | ProblemError): void
}

/**
 * Decorates `app.holds`. At close (app.ts), a hold still running when the close's grace is over is
 * cut (its connection closed with no answer), so `close()` never waits out a fault's latency or a
 * rule's delay and no timer outlives the mock.
 */
export function registerHolds(app: FastifyInstance): Holds {
  const held = new Set<Held>()
  const holds: Holds = {
    hold(request, reply, ms, ends) {
      const raw = reply.raw
      const entry: Held = {
        timer: setTimeout(() => entry.end('release'), ms),
        end(how) {
          if (!held.delete(entry)) return
          clearTimeout(entry.timer)
          raw.removeListener('close', gone)
          if (how === 'release') return ends.release()
          if (how instanceof ProblemError) return ends.refuse(how)
          // Hijacked: Fastify writes nothing more and runs no later hook for it.
          reply.hijack()
          if (how === 'gone') endUnanswered(request, reply, 'abandoned')
          else request.raw.socket?.destroy()
          ends.stop()
        },
      }
      const gone = (): void => entry.end('gone')
      held.add(entry)
      raw.once('close', gone)
      // Closed already (the client left while an earlier step ran): no close event is to come.
      if (raw.destroyed) gone()
    },
    refuseAll(reason) {
      const ending = [...held]
      for (const entry of ending)
        entry.end(new ProblemError('DATA_REPLACED', `${reason} while this request was held by a rule's wait; nothing of it was performed. Send it again.`))
      return ending.length
    },
    cutAll() {
      for (const entry of [...held]) entry.end('cut')
    },
    get size() {
      return held.size
    },
  }
  app.decorate('holds', holds)
  return holds
}
