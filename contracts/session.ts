import type { Transport, WireRequest } from '../src/wire/transport.ts'
import { Interrupted } from './halt.ts'

/**
 * The run's session token, signed in again when the installation stops taking it. The API's
 * description gives tokens a lifetime (`expires_in`, section Limits) and shows no refresh
 * (Authentication, 7), so a run longer than that signs in again, once per token that had worked.
 */
export class Session {
  #token: string
  readonly #issued = new Set<string>()
  readonly #worked = new Set<string>()
  #renewing: Promise<string> | undefined

  constructor(
    token: string,
    private readonly signIn: () => Promise<string>,
  ) {
    this.#token = token
    this.#issued.add(token)
  }

  get token(): string {
    return this.#token
  }

  /** Whether the text is a token of this session (the current one or one it replaced). */
  owns(token: string): boolean {
    return this.#issued.has(token)
  }

  worked(token: string): void {
    this.#worked.add(token)
  }

  /**
   * A new token after `refused` was refused, or undefined when signing in again would not help:
   * the token never worked (a refusal of the user, not an expiry). Calls that notice the same
   * expiry at once share one sign-in.
   */
  async renew(refused: string): Promise<string | undefined> {
    if (refused !== this.#token) return this.#token
    if (!this.#worked.has(refused)) return undefined
    this.#renewing ??= this.signIn()
      .then((token) => {
        this.#token = token
        this.#issued.add(token)
        return token
      })
      .finally(() => {
        this.#renewing = undefined
      })
    return this.#renewing
  }
}

/** The session token a request carries (`SessionToken`, or `Authorization: Bearer` for e-mail), if it is the session's. */
function sessionTokenOf(request: WireRequest, session: Session): string | undefined {
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const token = name.toLowerCase() === 'sessiontoken' ? value : name.toLowerCase() === 'authorization' ? /^Bearer\s+(\S+)$/i.exec(value)?.[1] : undefined
    if (token !== undefined && session.owns(token)) return token
  }
  return undefined
}

function withToken(request: WireRequest, from: string, to: string): WireRequest {
  const headers = Object.fromEntries(
    Object.entries(request.headers ?? {}).map(([name, value]) => [name, value === from ? to : value.replace(`Bearer ${from}`, `Bearer ${to}`)]),
  )
  return { ...request, headers }
}

/**
 * Requests with the session's current token in place of an older one it issued; a 401 to a
 * token that worked before signs in again and sends the request once more. Requests with other
 * tokens (or none), as the refusal contracts send them, go as they are.
 */
export function sessionTransport(inner: Transport, session: Session): Transport {
  return {
    target: inner.target,
    close: () => inner.close(),
    async send(request) {
      const carried = sessionTokenOf(request, session)
      if (carried === undefined) return inner.send(request)
      const sent = carried === session.token ? request : withToken(request, carried, session.token)
      const token = session.token
      const answer = await inner.send(sent)
      if (answer.status !== 401) {
        session.worked(token)
        return answer
      }
      const fresh = await session.renew(token)
      return fresh === undefined || fresh === token ? answer : inner.send(withToken(sent, token, fresh))
    },
  }
}

/** Requests that are refused once the signal is aborted: a contract stops at its next request. */
export function interruptibleTransport(inner: Transport, signal: AbortSignal | undefined): Transport {
  if (signal === undefined) return inner
  return {
    target: inner.target,
    close: () => inner.close(),
    send(request) {
      if (signal.aborted) return Promise.reject(new Interrupted())
      return inner.send(request)
    },
  }
}
