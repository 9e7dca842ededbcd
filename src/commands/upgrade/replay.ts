import { createClient, successOf, type Client } from '../../client/client.ts'
import { ConfigError } from '../../cli-base/exit.ts'
import type { WireResponse } from '../../wire/transport.ts'
import { bufferOf, textOf } from '../../bytes.ts'
import { successfulAnswer, type Interaction } from '../../usage-file/file.ts'
import { anyOperation, strictReleaseDocument } from './documents.ts'
import { readCache } from './read-cache.ts'
import { clientRequest, type ReplayedRelease } from './requests.ts'
import type { ReleaseMock } from './release-mock.ts'
import type { ReplayIds } from './replay-ids.ts'

/**
 * The replay of a usage file on one release: every interaction in which the client got an answer
 * it could use (a 2xx) is sent again, in the client's form, to that release's mock, in the order
 * of the file, and what came back is kept. Interactions the client met only refusals in are not
 * replayed: a refusal depends on what the test did (an expired token, a filter written wrong),
 * which a shape does not keep.
 */

/** What a release answered to the client's request. */
export interface Outcome {
  /** The request as sent (method and path with its query; never a header, so never a token). */
  sent: string
  status: number
  contentType: string
  /**
   * The body as parsed, where anything reads it: a refusal (its problem), a save's or delete's
   * result (its flag), an answer whose shape the client received (its members). Undefined for any
   * other: a page of rows nobody reads is not parsed.
   */
  body: unknown
  /** The codes of the warnings the release answered with (its `X-Mock-Warnings`). */
  warnings: string[]
  /** A refusal's problem: its code, detail and, for a request the document refuses, where. */
  problem?: { code?: string; detail?: string; violations: Array<{ pointer: string; message: string }> }
  /** Save and delete: the success flag (in either spelling) and, when false, the codes of `ReturnStates`. */
  flag?: boolean
  states?: string[]
}

/** A replayed release as it is opened here, with the bodies parsed (shared by both releases). */
export interface OpenedRelease extends ReplayedRelease {
  bodies: ParsedBodies
}

/** One interaction on one release: its outcome, or why it was not replayed. */
export type Replayed = { outcome: Outcome } | { skip: string; refusalsOnly?: true }

/** Bytes of answers whose parsed bodies are kept at most (past it, the memory starts again empty). */
export const PARSED_BODIES_BYTES = 16 * 1024 * 1024

/** Bodies of one length kept at most. */
const SAME_LENGTH = 8

/**
 * Answers' bodies as parsed, by their bytes, for both sides of a replay: many shapes get the same
 * answer (every page size above the table's rows reads the whole table, in each order the client
 * reads it), which is parsed once, and the same body then is the same value, so what is worked out
 * of it (compare.ts) is worked out once. Interactions alternate between reads, so one body kept
 * would be parsed again at nearly every interaction. Shared values are only read.
 */
export class ParsedBodies {
  /** By length, the bodies of that length (a few: pages of one table in different orders). */
  #kept = new Map<number, Array<{ bytes: Buffer; value: unknown }>>()
  #bytes = 0

  parse(bytes: Uint8Array): unknown {
    const buffer = bufferOf(bytes)
    const same = this.#kept.get(buffer.length)
    if (same !== undefined) for (const entry of same) if (entry.bytes.equals(buffer)) return entry.value
    let value: unknown
    try {
      value = JSON.parse(textOf(bytes))
    } catch {
      value = textOf(bytes)
    }
    if (this.#bytes + buffer.length > PARSED_BODIES_BYTES) {
      this.#kept.clear()
      this.#bytes = 0
    }
    const entries = this.#kept.get(buffer.length)
    // A handful of bodies of one length are compared at most: many more (one page per value of a filter, say) are parsed each time, not compared each time with all.
    if (entries === undefined) this.#kept.set(buffer.length, [{ bytes: buffer, value }])
    else if (entries.length < SAME_LENGTH) entries.push({ bytes: buffer, value })
    else return value
    this.#bytes += buffer.length
    return value
  }
}

function parsed(response: WireResponse, bodies: ParsedBodies): { contentType: string; body: unknown } {
  const contentType = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  if (/[/+]json$/.test(contentType) && response.body.length > 0) return { contentType, body: bodies.parse(response.body) }
  return { contentType, body: /^text\//.test(contentType) || contentType === '' ? textOf(response.body) : `<${response.body.length} bytes>` }
}

function outcomeOf(sent: string, interaction: Interaction, response: WireResponse, bodies: ParsedBodies): Outcome {
  const operation = interaction.operation
  const read = response.status >= 300 || operation === 'saveItems' || operation === 'deleteItems' || successfulAnswer(interaction)?.body !== undefined
  const contentType = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  const body = read ? parsed(response, bodies).body : undefined
  const warnings = (response.headers['x-mock-warnings'] ?? '')
    .split(',')
    .map((code) => code.trim())
    .filter((code) => code !== '')
  const outcome: Outcome = { sent, status: response.status, contentType, body, warnings }
  if (response.status >= 300 && body !== null && typeof body === 'object') {
    const problem = body as { code?: unknown; detail?: unknown; violations?: unknown }
    outcome.problem = {
      ...(typeof problem.code === 'string' ? { code: problem.code } : {}),
      ...(typeof problem.detail === 'string' ? { detail: problem.detail } : {}),
      violations: Array.isArray(problem.violations)
        ? problem.violations.map((v: { pointer?: unknown; message?: unknown }) => ({ pointer: String(v.pointer ?? ''), message: String(v.message ?? '') }))
        : [],
    }
  }
  if ((operation === 'saveItems' || operation === 'deleteItems') && response.status < 300) {
    const flag = successOf(body)
    if (flag !== undefined) outcome.flag = flag
    if (flag === false)
      outcome.states = [...new Set(((body as { ReturnStates?: Array<{ Code?: unknown }> }).ReturnStates ?? []).map((state) => String(state.Code)))]
  }
  return outcome
}

/**
 * The replay's own session on a release: by the sign-in its document serves (read from the
 * document, as the mock's routes are, so the replay signs in whatever the profiles say).
 */
async function signInTo(client: Client, release: string, ids: ReplayIds): Promise<string> {
  const { operations } = strictReleaseDocument(release)
  const form = operations.has('signIn') ? 'signIn' : operations.has('signInWithoutOrganization') ? 'signInWithoutOrganization' : 'signInLegacy'
  const answer = await client.signInAnswer({ username: ids.user.email, password: ids.user.password }, form)
  const body = answer.body as { access_token?: unknown; SessionToken?: unknown }
  const token = body.access_token ?? body.SessionToken
  if (answer.status !== 200 || typeof token !== 'string')
    throw new ConfigError(`the fixture's user ${ids.user.email} cannot sign in to the mock of ${release} (${answer.status})`)
  return token
}

/** The operations that only read, whose answers a side keeps until something else is sent (read-cache.ts). */
const READS = ['queryItems', 'queryItemsLegacy', 'listAttachments', 'downloadAttachment']

/** A release's mock opened for a replay: a client of its own forms, signed in as the fixture's user. */
export async function openRelease(mock: ReleaseMock, ids: ReplayIds, bodies: ParsedBodies): Promise<OpenedRelease> {
  const reads = new Set(
    READS.map(anyOperation)
      .filter((entry) => entry !== undefined)
      .map((entry) => `${entry.method.toUpperCase()} ${entry.path}`),
  )
  const transport = readCache(mock.transport, reads)
  const client = createClient({
    transport,
    productVersion: mock.release,
    organization: ids.organization,
    clientId: ids.clientId,
    legacyClientId: ids.legacyClientId,
    workspaceId: ids.workspaceId,
    applicationId: ids.application.id,
  })
  client.token = await signInTo(client, mock.release, ids)
  const { operations } = strictReleaseDocument(mock.release)
  return { release: mock.release, transport, client, token: client.token, ids, serves: (id) => operations.has(id), writes: () => transport.writes, bodies }
}

/**
 * Replays one interaction on one release (a side replays the usage's interactions one at a time,
 * in the file's order): what the release answered, or why it was not replayed.
 */
export async function replayInteraction(side: OpenedRelease, interaction: Interaction): Promise<Replayed> {
  if (successfulAnswer(interaction) === undefined) return { skip: 'the client met only refusals here', refusalsOnly: true }
  try {
    const prepared = await clientRequest(side, interaction)
    if ('skip' in prepared) return prepared
    const response = await side.transport.send(prepared.request)
    return { outcome: outcomeOf(`${prepared.request.method} ${prepared.request.path.split('?')[0]}`, interaction, response, side.bodies) }
  } catch (error) {
    // A shape the release cannot make a request of (a body its form cannot carry): that interaction cannot be replayed, the others still are.
    return { skip: `its recorded shape cannot be replayed (${(error as Error).message})` }
  }
}
