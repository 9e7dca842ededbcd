import type { Deps, UserDef } from '../store/types.ts'

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
  clear(): void
  readonly ttlSeconds: number
}

// Bounded so a client that signs in in a loop cannot grow the mock without limit.
const MAX_SESSIONS = 100_000

export function createTokenStore(deps: Deps, ttlSeconds: number): TokenStore {
  const sessions = new Map<string, Session>()
  return {
    ttlSeconds,
    issue(user) {
      const token = Buffer.from(deps.randomBytes(32)).toString('base64url')
      const issuedAt = deps.now()
      const session = { token, userId: user.id, issuedAt, expiresAt: issuedAt + ttlSeconds * 1000 }
      if (sessions.size >= MAX_SESSIONS) {
        const oldest = sessions.keys().next().value
        if (oldest !== undefined) sessions.delete(oldest)
      }
      sessions.set(token, session)
      return session
    },
    check(token) {
      const session = sessions.get(token)
      if (session === undefined) return { ok: false, reason: 'UNKNOWN_TOKEN' }
      if (deps.now() >= session.expiresAt) return { ok: false, reason: 'TOKEN_EXPIRED' }
      return { ok: true, session }
    },
    clear: () => sessions.clear(),
  }
}
