import { WARNINGS, type WarningCode } from '../../policy/warnings.ts'
import { successfulAnswer, type Interaction } from '../../usage-file/file.ts'
import type { Shape } from '../../usage-file/shape.ts'
import { describeInteraction } from '../usage/replay.ts'
import { answerMembers, anyOperation, documentsStatus, requestSide, requiredHeaders, sendOf, successorOf, tokenOf, type ReleaseDocument } from './documents.ts'
import { memberDiffs, pathText, renamedTo, type MemberDiff } from './members.ts'
import type { Outcome, Replayed } from './replay.ts'
import { bodyText, queryShapeText, requestText } from './shown.ts'
import type { FindingKind, FindingSide, TokenSide } from './types.ts'

/**
 * What one recorded interaction meets on the target, decided from the two replays and the two
 * documents: each difference between what the recorded release answered and what the target
 * answered to the same request is a change; what both answered alike (a replay's own artefact
 * included) is none. An operation the target's document does not have is a change of every
 * recorded shape of it, replayed or not.
 */
export interface Change {
  kind: FindingKind
  operationId: string
  /**
   * The cause within its kind: changes of one key are one finding. An unreplayable interaction's key
   * is its operation and the side that could not replay it: one finding says the fixture is likely
   * wrong, with the first shape's reason, not one finding per reason.
   */
  key: string
  breaks: boolean
  /** The interaction's place in the usage file. */
  index: number
  /** The interaction in the client's terms (`Get Items on master rows, filter Status eq <string>`). */
  title: string
  /** The cause as the releases said it: a status and problem, a warning, a type. */
  why: string
  /** An unreplayable interaction that the target's replay, not the recorded release's, could not make. */
  onTarget?: true
  now: FindingSide
  then: FindingSide
}

/** Kinds of change that one answer member makes in the answers of several operations: one finding for all of them. */
export const MEMBER_KINDS: ReadonlySet<FindingKind> = new Set(['answer-renamed', 'answer-removed', 'answer-retyped'])

/** The inputs of a comparison: the usage, its two replays (one result per interaction) and the two releases' documents. */
export interface Comparison {
  interactions: readonly Interaction[]
  from: ReleaseDocument
  to: ReleaseDocument
  recorded: readonly Replayed[]
  target: readonly Replayed[]
}

/** The two releases' documents, and what they say of each operation, read once per operation rather than once per interaction. */
interface Views {
  from: ReleaseDocument
  to: ReleaseDocument
  /** What the target takes for an operation (requestSide), by operationId. */
  sides: Map<string, FindingSide>
  /** The operations the usage calls, in the order it first calls them. */
  used: readonly string[]
}

function targetSide(views: Views, operationId: string): FindingSide {
  let side = views.sides.get(operationId)
  if (side === undefined) {
    const taken = requestSide(views.to, operationId)
    side = taken === undefined ? {} : { ...taken, ...optional('send', sendOf(views.from, operationId, views.to, operationId)) }
    views.sides.set(operationId, side)
  }
  return side
}

/** `{ [name]: value }`, or nothing when the value is undefined. */
const optional = <K extends string, V>(name: K, value: V | undefined): Partial<Record<K, V>> => (value === undefined ? {} : ({ [name]: value } as Record<K, V>))

const refusal = (outcome: Outcome) =>
  `${outcome.status}${outcome.problem?.code === undefined ? '' : ` ${outcome.problem.code}`}${outcome.problem?.detail === undefined ? '' : `: ${outcome.problem.detail}`}`

/** The client's request as it is today: the operation's method and path, its media type and body shape, and the request written out. */
function nowOf(interaction: Interaction): FindingSide {
  const entry = anyOperation(interaction.operation)
  const method = entry?.method.toUpperCase() ?? '?'
  const path = entry?.path ?? '?'
  const body = bodyText(interaction)
  return {
    method,
    path,
    ...(interaction.request.contentType === undefined ? {} : { contentType: interaction.request.contentType }),
    ...(body === undefined ? {} : { body }),
    example: requestText(interaction, method, path),
  }
}

/**
 * The client's request in the target's form, for an operation the target replaced: the query text
 * moves between the URL and the body's `query` as the two forms of Get Items take it; any other
 * request is shown as the target's document writes the body.
 */
function convertedExample(interaction: Interaction, then: FindingSide): string | undefined {
  const query = interaction.request.query === undefined ? undefined : queryShapeText(interaction.request.query)
  const line = `${then.method ?? ''} ${then.path ?? ''}`
  if (query !== undefined && then.body !== undefined && /^\{ query: string/.test(then.body)) return `${line} { query: "${query}" }`
  if (query !== undefined && then.body === undefined) return `${line}?${query}`
  // Nothing of the client's request carries over that `then` does not already say.
  return undefined
}

/** The top-level members of the answer the client received (a JSON object's), if any. */
function answerNames(interaction: Interaction): string[] {
  const body = successfulAnswer(interaction)?.body
  return body === undefined || typeof body === 'string' || body.fields === undefined ? [] : Object.keys(body.fields).filter((name) => name !== '*')
}

/** The replacement's answer as its document writes it, and which members the client reads that it does not have. */
function answerText(members: ReadonlyMap<string, string>, received: readonly string[]): string | undefined {
  const lost = received.filter((name) => !members.has(name))
  // An answer that holds all the client reads is no news.
  return lost.length === 0
    ? undefined
    : `{ ${[...members].map(([name, type]) => `${name}: ${type}`).join(', ')} }, without ${lost.join(', ')}, which the client reads`
}

/** What an operation the target does not serve becomes there: the operation taking its place, what the target takes for it and what it answers. */
interface Gone {
  successor: string | undefined
  then: FindingSide | undefined
  answer: Map<string, string> | undefined
  /** What the target answered the client's form, from the first shape replayed (shapes met only with refusals were not). */
  answered?: Outcome
  /** Where the recorded release wants the token the client's sign-in answers, when the target wants it otherwise. */
  token?: TokenSide
  changes: Change[]
}

/**
 * Where each release wants the token, when the client's operation is a sign-in (tokenOf) and the
 * two differ in the member that holds it or the headers it goes in: the client's other operations
 * on its release, and as the target serves them (the one taking the place of each it does not).
 */
function tokensOf(views: Views, operationId: string, successor: string): { now: TokenSide; then: TokenSide } | undefined {
  const { from, to, used } = views
  const onTarget = used.map((op) => (to.operations.has(op) ? op : successorOf(op, from.profile, to.profile))).filter((op): op is string => op !== undefined)
  const [now, then] = [tokenOf(from, operationId, used), tokenOf(to, successor, onTarget)]
  if (now === undefined || then === undefined) return undefined
  const said = (token: TokenSide) => JSON.stringify([token.member, token.headers.map((h) => h.header)])
  return said(now) === said(then) ? undefined : { now, then }
}

function goneOf(views: Views, operationId: string): Gone {
  const successor = successorOf(operationId, views.from.profile, views.to.profile)
  if (successor === undefined) return { successor, then: undefined, answer: undefined, changes: [] }
  const side = requestSide(views.to, successor)
  const tokens = tokensOf(views, operationId, successor)
  const then =
    side === undefined ? undefined : { ...side, ...optional('send', sendOf(views.from, operationId, views.to, successor)), ...optional('token', tokens?.then) }
  return { successor, then, answer: answerMembers(views.to, successor), ...optional('token', tokens?.now), changes: [] }
}

/** `send` without the members the client's own request, converted, already fills (`query` from its URL's query). */
function unfilled(send: Record<string, string> | undefined, example: string | undefined): Record<string, string> | undefined {
  if (send === undefined || example === undefined) return send
  const left = Object.entries(send).filter(([name]) => !example.includes(`${name.replace(/^\[\]\./, '')}: `))
  return left.length === 0 ? undefined : Object.fromEntries(left)
}

/** The target's side for one recorded shape: the client's request in the target's form, and what is left to send beside it. */
function thenOf(then: FindingSide, example: string | undefined, answer: string | undefined): FindingSide {
  const { send, ...side } = then
  return { ...side, ...optional('send', unfilled(send, example)), ...optional('example', example), ...optional('answer', answer) }
}

/** The change of one recorded shape of an operation the target does not serve; its `why` is filled in at the end, from the first shape the target answered. */
function goneChange(gone: Gone, operationId: string, interaction: Interaction, index: number, outcome: Outcome | undefined): Change {
  const { successor, then, answer } = gone
  const now = { ...nowOf(interaction), ...optional('token', gone.token) }
  // The document says it is gone; the replay shows whether the target still takes the client's form anyway.
  const breaks = outcome === undefined || outcome.status >= 300
  const moved = then !== undefined && then.method === now.method && then.path !== now.path
  const said = answer === undefined ? undefined : answerText(answer, answerNames(interaction))
  return {
    kind: moved ? 'path-moved' : 'variant-gone',
    operationId,
    key: `${operationId}>${successor ?? ''}`,
    breaks,
    index,
    title: describeInteraction(interaction),
    why: '',
    now,
    then: then === undefined ? {} : thenOf(then, convertedExample(interaction, then), said),
  }
}

/** The recorded answer shape written last as text, and its text: both sides' answers to an interaction are held to its shape. */
let lastShape: { shape: object; text: string } | undefined

/** Of each parsed body (shared by every answer with its bytes: replay.ts, ParsedBodies), the diffs against each shape held to it so far. */
const diffsByBody = new WeakMap<object, Map<string, readonly MemberDiff[]>>()

/** Shapes whose diffs are kept per body at most: a usage may hold many; past it they are worked out each time. */
const SHAPES_PER_BODY = 1024

/**
 * `memberDiffs(shape, body)`, worked out once per body and shape: a usage's many shapes of one
 * read get the same few answers, each held to the same recorded shape again and again. The diffs
 * are shared, so only read.
 */
function diffsOf(shape: Shape, body: unknown): readonly MemberDiff[] {
  if (body === null || typeof body !== 'object' || typeof shape === 'string') return memberDiffs(shape, body)
  if (lastShape?.shape !== shape) lastShape = { shape, text: JSON.stringify(shape) }
  const { text } = lastShape
  let byShape = diffsByBody.get(body)
  if (byShape === undefined) diffsByBody.set(body, (byShape = new Map()))
  let diffs = byShape.get(text)
  if (diffs === undefined) {
    diffs = memberDiffs(shape, body)
    if (byShape.size < SHAPES_PER_BODY) byShape.set(text, diffs)
  }
  return diffs
}

/** What the recorded release's answer lacks or carries otherwise of what the client received (computed once: the check of a replay and the comparison both need it). */
function recordedDiffs(interaction: Interaction, outcome: Outcome): readonly MemberDiff[] {
  const recorded = successfulAnswer(interaction)?.body
  return recorded === undefined || outcome.status >= 300 ? [] : diffsOf(recorded, outcome.body)
}

/** Why the recorded release itself does not serve the replay as the client saw it; undefined when it does. */
function unreplayable(interaction: Interaction, outcome: Outcome, diffs: readonly MemberDiff[]): string | undefined {
  if (outcome.status >= 300)
    return `${outcome.status}${outcome.problem?.code === undefined ? '' : ` ${outcome.problem.code}`}${outcome.problem?.detail === undefined ? '' : `: ${outcome.problem.detail}`}`
  if (outcome.flag === false) return `the ${interaction.operation === 'deleteItems' ? 'delete' : 'save'} is refused (${(outcome.states ?? []).join(', ')})`
  const [first] = diffs
  if (first !== undefined)
    return `its answer ${first.change === 'missing' ? 'lacks' : 'has another type for'} ${pathText(first.path) || 'the body'}, which the client received`
  return undefined
}

/** The changes one replayed interaction meets on the target: refusals, warnings, statuses and answer members. */
function replayedChanges(views: Views, interaction: Interaction, index: number, onRecorded: Replayed, onTarget: Replayed): Change[] {
  const { to } = views
  const operationId = interaction.operation
  // What every change of the interaction says of it, written out only when there is a change: most interactions have none.
  let common: { operationId: string; index: number; title: string; now: FindingSide } | undefined
  const base = () => (common ??= { operationId, index, title: describeInteraction(interaction), now: nowOf(interaction) })
  if ('skip' in onRecorded) {
    if (onRecorded.refusalsOnly === true) return statusChanges(views, interaction, index)
    return [{ ...base(), kind: 'unreplayable', key: `${operationId}|recorded`, breaks: false, why: onRecorded.skip, then: {} }]
  }
  const a = onRecorded.outcome
  const diffsBefore = recordedDiffs(interaction, a)
  const cannot = unreplayable(interaction, a, diffsBefore)
  if (cannot !== undefined) return [{ ...base(), kind: 'unreplayable', key: `${operationId}|recorded`, breaks: false, why: cannot, then: { status: a.status } }]
  if ('skip' in onTarget)
    return [{ ...base(), kind: 'unreplayable', key: `${operationId}|target`, breaks: false, why: onTarget.skip, onTarget: true, then: {} }]
  const b = onTarget.outcome
  const side = targetSide(views, operationId)
  if (b.status >= 300) {
    const violations = b.problem?.code === 'VALIDATION' ? b.problem.violations : []
    if (violations.length > 0) {
      const headers = requiredHeaders(to, operationId)
      const header = violations.map((v) => /^\/headers\/([^/]+)/.exec(v.pointer)?.[1]).find((name) => name !== undefined)
      const named = header === undefined ? undefined : (headers.find((h) => h.toLowerCase() === header) ?? header)
      return [
        {
          ...base(),
          kind: 'request-refused',
          key: `${operationId}|${violations.map((v) => v.pointer).join(',')}`,
          breaks: true,
          why: refusal(b),
          then: { ...side, ...(named === undefined ? {} : { header: named }), status: b.status },
        },
      ]
    }
    return [
      {
        ...base(),
        kind: b.status === 400 ? 'request-refused' : 'status-changed',
        key: `${operationId}|${b.status}|${b.problem?.code ?? ''}`,
        breaks: true,
        why: refusal(b),
        now: { ...base().now, status: a.status },
        then: { ...side, status: b.status },
      },
    ]
  }
  const changes: Change[] = []
  if (b.status !== a.status)
    changes.push({
      ...base(),
      kind: 'status-changed',
      key: `${operationId}|${a.status}>${b.status}`,
      breaks: true,
      why: `${a.status} on the recorded release, ${b.status} on ${to.release}`,
      now: { ...base().now, status: a.status },
      then: { status: b.status },
    })
  for (const warning of b.warnings.filter((code) => !a.warnings.includes(code))) {
    const text = (WARNINGS as Record<string, string>)[warning as WarningCode] ?? ''
    changes.push({
      ...base(),
      kind: 'request-tolerated',
      key: `${operationId}|${warning}`,
      breaks: false,
      why: `${warning}${text === '' ? '' : `: ${text}`}`,
      then: { ...side, warning },
    })
  }
  if (a.flag === true && b.flag === false)
    changes.push({
      ...base(),
      kind: 'request-refused',
      key: `${operationId}|${(b.states ?? []).join(',')}`,
      breaks: true,
      why: `the ${operationId === 'deleteItems' ? 'delete' : 'save'} is refused (${(b.states ?? []).join(', ')})`,
      then: side,
    })
  const answer = successfulAnswer(interaction)?.body
  if (answer === undefined) return changes
  // What the recorded release already answers otherwise than the client saw is the replay's, not the release's: only the target's own differences count.
  const before = new Set(diffsBefore.map((d) => `${pathText(d.path)}|${d.change}`))
  for (const diff of diffsOf(answer, b.body).filter((d) => !before.has(`${pathText(d.path)}|${d.change}`))) {
    const member = pathText(diff.path)
    if (diff.change === 'retyped') {
      changes.push({
        ...base(),
        kind: 'answer-retyped',
        key: `${member}|${diff.received}>${diff.got ?? ''}`,
        breaks: true,
        why: `${member} is ${diff.got ?? '?'}`,
        now: { member, type: diff.received, example: base().now.example ?? '' },
        then: { member, type: diff.got ?? '?' },
      })
      continue
    }
    const renamed = renamedTo(diff, a.body, b.body)
    const renamedPath = renamed === undefined ? undefined : pathText([...diff.path.slice(0, -1), renamed])
    changes.push(
      renamedPath === undefined
        ? {
            ...base(),
            kind: 'answer-removed',
            key: `${member}|${diff.received}`,
            breaks: true,
            why: `${member} is missing`,
            now: { member, type: diff.received, example: base().now.example ?? '' },
            then: { member, type: 'absent' },
          }
        : {
            ...base(),
            kind: 'answer-renamed',
            key: `${member}>${renamedPath}`,
            breaks: true,
            why: `${member} is ${renamedPath}`,
            now: { member, type: diff.received, example: base().now.example ?? '' },
            then: { member: renamedPath, type: diff.received },
          },
    )
  }
  return changes
}

/** A refusal status the client met and handles that the target's document no longer lists for the operation. */
function statusChanges(views: Views, interaction: Interaction, index: number): Change[] {
  const { from, to } = views
  return Object.keys(interaction.answers)
    .map(Number)
    .filter((status) => status >= 300 && documentsStatus(from, interaction.operation, status) && !documentsStatus(to, interaction.operation, status))
    .map((status) => ({
      kind: 'status-changed' as const,
      operationId: interaction.operation,
      key: `${interaction.operation}|${status}>`,
      breaks: false,
      index,
      title: describeInteraction(interaction),
      why: `${to.release}'s document lists no ${status} for ${interaction.operation}`,
      now: { ...nowOf(interaction), status },
      then: { status },
    }))
}

/**
 * The changes a usage meets on the target, taken interaction by interaction as both releases'
 * answers come in: what is kept of an interaction is its changes, never its answers, so a usage of
 * 200,000 interactions holds no more than one interaction's answers at a time. `changes()` gives
 * them in the order findings are made from: the shapes of operations the target does not serve,
 * operation by operation, then every other change, then what the recorded release could not
 * replay of the operations gone.
 */
export class ChangeCollector {
  readonly #views: Views
  /** Operations the recorded release does not have either: recorded on another release (--from), nothing can be said of them. */
  readonly #foreign: Set<string>
  /** Operations the recorded release has and the target does not, in the order the usage first uses them. */
  readonly #gone = new Map<string, Gone>()
  readonly #changes: Change[] = []
  readonly #goneUnreplayable: Change[] = []

  constructor(interactions: readonly Interaction[], from: ReleaseDocument, to: ReleaseDocument) {
    const used = [...new Set(interactions.map((i) => i.operation))]
    this.#views = { from, to, sides: new Map(), used }
    this.#foreign = new Set(used.filter((operationId) => !from.operations.has(operationId)))
    for (const operationId of used)
      if (from.operations.has(operationId) && !to.operations.has(operationId)) this.#gone.set(operationId, goneOf(this.#views, operationId))
  }

  /** Takes the interaction at `index` of the usage and what each release made of it. */
  add(interaction: Interaction, index: number, recorded: Replayed, target: Replayed): void {
    const operationId = interaction.operation
    const gone = this.#gone.get(operationId)
    if (gone !== undefined) {
      const outcome = 'outcome' in target ? target.outcome : undefined
      gone.answered ??= outcome
      gone.changes.push(goneChange(gone, operationId, interaction, index, outcome))
      // An interaction the recorded release cannot replay says nothing about the target, except that the fixture may be wrong.
      if ('outcome' in recorded) {
        const cannot = unreplayable(interaction, recorded.outcome, recordedDiffs(interaction, recorded.outcome))
        if (cannot !== undefined)
          this.#goneUnreplayable.push({
            kind: 'unreplayable',
            operationId,
            key: `${operationId}|recorded`,
            breaks: false,
            index,
            title: describeInteraction(interaction),
            why: cannot,
            now: nowOf(interaction),
            then: { status: recorded.outcome.status },
          })
      }
      return
    }
    if (this.#foreign.has(operationId)) {
      this.#changes.push({
        kind: 'unreplayable',
        operationId,
        key: `${operationId}|recorded`,
        breaks: false,
        index,
        title: describeInteraction(interaction),
        why: `${operationId} is no operation of ${this.#views.from.release}`,
        now: nowOf(interaction),
        then: {},
      })
      return
    }
    this.#changes.push(...replayedChanges(this.#views, interaction, index, recorded, target))
  }

  /** Every change taken so far. */
  changes(): Change[] {
    const gone = [...this.#gone].flatMap(([operationId, { answered, changes }]) => {
      const why = answered === undefined ? `${operationId} is not in the document of ${this.#views.to.release}` : refusal(answered)
      return changes.map((change) => ({ ...change, why }))
    })
    return [...gone, ...this.#changes, ...this.#goneUnreplayable]
  }
}

/** Every change the usage meets on the target, from its two replays held whole (the collector above takes them one at a time). */
export function changesOf(comparison: Comparison): Change[] {
  const collector = new ChangeCollector(comparison.interactions, comparison.from, comparison.to)
  comparison.interactions.forEach((interaction, index) => {
    const [recorded, target] = [comparison.recorded[index], comparison.target[index]]
    if (recorded !== undefined && target !== undefined) collector.add(interaction, index, recorded, target)
  })
  return collector.changes()
}
