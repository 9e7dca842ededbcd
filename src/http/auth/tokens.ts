import { ProblemError } from '../../errors.ts'
import type { Deps, UserDef } from '../../store/model/types.ts'

/** A signed-in session as the mock remembers it. */
export interface Session {
  token: string
  userId: number
  issuedAt: number
  expiresAt: number
}

export type TokenCheck = { ok: true; session: Session } | { ok: false; reason: 'UNKNOWN_TOKEN' | 'TOKEN_EXPIRED' }

/** Issues and checks session tokens: random, opaque, expiring after `ttlSeconds` on the injected clock. */
export interface TokenStore {
  issue(user: UserDef): Session
  check(token: string): TokenCheck
  /** Ends every session; answers how many there were. */
  clear(): number
  /** Ends the sessions of users not in `userIds` (a fixture without them was loaded); answers how many. */
  forgetUsersOtherThan(userIds: ReadonlySet<number>): number
  /** Sessions remembered now (live ones, and expired ones not yet forgotten). */
  readonly size: number
  readonly ttlSeconds: number
}

/** Live sessions the mock keeps at most by default (`--max-sessions`). */
export const DEFAULT_MAX_SESSIONS = 1_000_000

/**
 * A live token works until it expires: sessions are never evicted while live. Expired ones are
 * forgotten as new ones arrive, one lifetime after they expired (sooner when the limit is near);
 * with a fixed lifetime on a clock that only moves forward they are the oldest, so the sweep
 * stops at the first that stays. A sign-in that would pass
 * `maxSessions` live sessions is refused (503 TOO_MANY_SESSIONS) rather than ending one early: a
 * test's token must not stop working because another client signed in a lot. The way out is
 * explicit: a reset with `sessions=true` ends them all, and a fixture load ends those of the users
 * it no longer has.
 */
export function createTokenStore(deps: Deps, ttlSeconds: number, maxSessions = DEFAULT_MAX_SESSIONS): TokenStore {
  const sessions = new Map<string, Session>()
  const ttlMs = ttlSeconds * 1000
  /**
   * Forgets sessions that expired before `before`, oldest first, stopping at the first that did
   * not; `everyOne` looks at all of them (a clock set back can put a short-lived one behind).
   */
  const forgetExpired = (before: number, everyOne = false): void => {
    for (const [token, session] of sessions) {
      if (session.expiresAt <= before) sessions.delete(token)
      else if (!everyOne) break
    }
  }
  return {
    ttlSeconds,
    get size() {
      return sessions.size
    },
    issue(user) {
      const issuedAt = deps.now()
      // Kept one lifetime past expiry, so a client that comes back late still hears TOKEN_EXPIRED.
      forgetExpired(issuedAt - ttlMs)
      if (sessions.size >= maxSessions) forgetExpired(issuedAt, true)
      if (sessions.size >= maxSessions) {
        throw new ProblemError(
          'TOO_MANY_SESSIONS',
          `The mock holds ${sessions.size} live sessions, its limit (--max-sessions); sign in again when some have expired, or end them all with POST /__mock/reset?sessions=true.`,
        )
      }
      const token = Buffer.from(deps.randomBytes(32)).toString('base64url')
      const session = { token, userId: user.id, issuedAt, expiresAt: issuedAt + ttlMs }
      sessions.set(token, session)
      return session
    },
    check(token) {
      const session = sessions.get(token)
      if (session === undefined) return { ok: false, reason: 'UNKNOWN_TOKEN' }
      if (deps.now() >= session.expiresAt) return { ok: false, reason: 'TOKEN_EXPIRED' }
      return { ok: true, session }
    },
    clear() {
      const ended = sessions.size
      sessions.clear()
      return ended
    },
    forgetUsersOtherThan(userIds) {
      let ended = 0
      for (const [token, session] of sessions) {
        if (!userIds.has(session.userId)) {
          sessions.delete(token)
          ended++
        }
      }
      return ended
    },
  }
}
