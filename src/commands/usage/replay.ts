import { targetClient } from '../../../contracts/runner.ts'
import type { Contract, ContractContext } from '../../../contracts/types.ts'
import { printFilter, type FilterLiteral, type FilterNode } from '../../store/filter-ast.ts'
import { queryText, type Answer, type Client, type ReadRow } from '../../client/client.ts'
import type { OperationId } from '../../wire/operations.ts'
import { successfulAnswer, type Interaction } from '../../usage-file/file.ts'
import type { QueryShape } from '../../usage-file/request-shape.ts'
import { jsonType, MEMBER_NAME, typesOf, type Shape } from '../../usage-file/shape.ts'
import { parseTemplate, placeholderType } from './template.ts'
import { replayDelete, replaySave } from './replay-writes.ts'
import { valueOfType } from './replay-rows.ts'

/**
 * `verify --usage`: each interaction of a usage file becomes a contract that sends a request of
 * the same shape to the installation, with values taken from its own rows, and checks what the
 * client relied on: the request accepted, every field it received with its JSON type, and the
 * paging, ordering, filtering and counting it asked for. Failures name the interaction in the
 * client's terms ("Get Items on OrderLines, filter MasterId eq <integer>: ...").
 */

/** Operations that change data: replayed only with --allow-writes (saves and deletes; the others are not replayed). */
const WRITES = new Set(['saveItems', 'deleteItems', 'runAction', 'sendEmail', 'getIdentities'])

const SIGN_INS = new Set(['signIn', 'signInWithoutOrganization', 'signInLegacy'])

/** The interaction as the client would say it. */
export function describeInteraction(interaction: Interaction): string {
  const q = interaction.request.query ?? {}
  const options = (shape: QueryShape) =>
    [
      shape.filter === undefined ? '' : `filter ${shape.filter}`,
      shape.orderBy === undefined ? '' : `order by ${shape.orderBy}`,
      shape.top === undefined ? '' : `top ${shape.top}`,
      shape.skip === true ? 'skip' : '',
    ]
      .filter((part) => part !== '')
      .map((part) => `, ${part}`)
      .join('')
  const table = q.relationKey === undefined ? 'master rows' : q.relationKey
  switch (interaction.operation) {
    case 'queryItems':
    case 'queryItemsLegacy':
      return `${q.count === true ? 'Get Items Count' : 'Get Items'}${interaction.operation === 'queryItemsLegacy' ? ' (older GET form)' : ''} on ${table}${options(q)}`
    case 'listAttachments':
      return `Get Attachments List of ${q.relationKey === undefined ? 'a master row' : `a ${q.relationKey} row`}${options(q)}`
    case 'downloadAttachment':
      return `Download Attachment of ${q.relationKey === undefined ? 'a master row' : `a ${q.relationKey} row`}`
    case 'signIn':
      return 'Sign in (with the organization in the path)'
    case 'signInWithoutOrganization':
      return 'Sign in (without the organization segment)'
    case 'signInLegacy':
      return 'Sign in (legacy)'
    case 'saveItems':
      return `Save ${(interaction.request.rows ?? []).map((kind) => `${kind.action} ${kind.table ?? 'master'} row`).join(', ')}`
    case 'deleteItems':
      return `Delete ${(interaction.request.delete?.tables ?? []).map((table) => `${table ?? 'master'} rows`).join(' and ')}${interaction.request.delete?.form === 'older' ? ' (older body)' : ''}`
    case 'generateRowLink':
      return 'Generate Row Link'
    case 'getIdentities':
      return 'Get Identities'
    case 'runAction':
      return 'Run Action'
    case 'sendEmail':
      return 'Send Email'
    default:
      return interaction.operation
  }
}

/** Each JSON member the client received that the answer lacks or carries with another JSON type, as readable lines. */
export function shapeProblems(recorded: Shape, value: unknown, path = 'the answer', notes: string[] = []): string[] {
  const types = typesOf(recorded)
  const received =
    value === null || value === undefined
      ? 'null'
      : Array.isArray(value)
        ? 'array'
        : typeof value === 'object'
          ? 'object'
          : typeof value === 'number'
            ? 'number'
            : typeof value
  const expected = [...new Set(types.filter((t) => t !== 'absent').map(jsonType))]
  if (value === undefined)
    return types.includes('absent') || expected.join() === 'null' ? [] : [`${path} is missing (the client received ${expected.join(' or ')})`]
  // A member the client only ever received as null told it nothing about its type.
  if (expected.join() === 'null') return []
  if (received === 'null' && !expected.includes('null')) {
    // A null the client never saw is worth a look, but a field it reads may well be empty on an installation.
    notes.push(`${path} is null on the installation; the client only ever received ${expected.join(' or ')}`)
    return []
  }
  if (!expected.includes(received))
    return [`${path} is ${received === 'string' ? `a text` : received === 'number' ? 'a number' : received} (the client received ${expected.join(' or ')})`]
  if (typeof recorded === 'string') return []
  const problems: string[] = []
  if (received === 'object' && recorded.fields !== undefined) {
    const at = (name: string) => (path === 'the answer' ? name : path === 'a row' ? `a row's ${name}` : `${path}.${name}`)
    for (const [name, field] of Object.entries(recorded.fields)) {
      if (name !== '*') {
        problems.push(...shapeProblems(field, (value as Record<string, unknown>)[name], at(name), notes))
        continue
      }
      // Keys that are data: each one the installation answers is held to the shape, none is required.
      for (const key of Object.keys(value as object).filter((k) => !MEMBER_NAME.test(k)))
        problems.push(...shapeProblems(field, (value as Record<string, unknown>)[key], at(key), notes))
    }
  }
  if (received === 'array' && recorded.items !== undefined) {
    // The first items show a missing or retyped field as well as all of them would.
    for (const item of (value as unknown[]).slice(0, 50)) {
      const found = shapeProblems(recorded.items, item, path === 'the answer' ? 'a row' : `${path}[]`, notes)
      if (found.length > 0) return [...problems, ...found]
    }
  }
  return problems
}

/** A literal for a filter from a value of the installation's rows. */
function literalFrom(value: unknown, type: string): FilterLiteral {
  // No row holds a value: one of the recorded type, so that the request keeps its shape.
  const known = typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string' ? value : valueOfType(type)
  if (typeof known === 'number') return { type: 'number', value: known, raw: String(known) }
  if (typeof known === 'boolean') return { type: 'boolean', value: known }
  return { type: 'string', value: typeof known === 'string' ? known : 'x' }
}

/** Fields a template's placeholders compare, each with the recorded type. */
function placeholders(node: FilterNode, out: Map<string, string> = new Map()): Map<string, string> {
  if (node.kind === 'and' || node.kind === 'or') {
    placeholders(node.left, out)
    placeholders(node.right, out)
  } else if (node.kind === 'not') placeholders(node.operand, out)
  else if (node.kind === 'call' || node.kind === 'compare') {
    const type = placeholderType(node.kind === 'call' ? node.value : node.value.type === 'string' ? node.value.value : undefined)
    if (type !== undefined) out.set(node.field, type)
  }
  return out
}

/** The template with every placeholder filled from one of the rows (the first holding all its fields, else field by field). */
export function instantiate(template: string, rows: ReadonlyArray<Readonly<Record<string, unknown>>>): { text: string; tree: FilterNode } | undefined {
  const tree = parseTemplate(template)
  if (tree === undefined) return undefined
  const wanted = placeholders(tree)
  const present = (row: Readonly<Record<string, unknown>>, field: string) => row[field] !== null && row[field] !== undefined
  const whole = rows.find((row) => [...wanted.keys()].every((field) => present(row, field)))
  const valueOf = (field: string) => (whole ?? rows.find((row) => present(row, field)))?.[field]
  const fill = (node: FilterNode): FilterNode => {
    switch (node.kind) {
      case 'and':
      case 'or':
        return { ...node, left: fill(node.left), right: fill(node.right) }
      case 'not':
        return { ...node, operand: fill(node.operand) }
      case 'call': {
        const value = valueOf(node.field)
        return placeholderType(node.value) === undefined ? node : { ...node, value: typeof value === 'string' ? value : String(value ?? 'x') }
      }
      case 'compare': {
        const type = node.value.type === 'string' ? placeholderType(node.value.value) : undefined
        return type === undefined ? node : { ...node, value: literalFrom(valueOf(node.field), type) }
      }
    }
  }
  const filled = fill(tree)
  return { text: printFilter(filled), tree: filled }
}

const lower = (value: unknown) => String(value).toLowerCase()

/** Whether a row matches a filled filter, read leniently (text case-insensitive, numbers as numbers); undefined fields match. */
export function rowMatches(node: FilterNode, row: ReadRow): boolean {
  switch (node.kind) {
    case 'and':
      return rowMatches(node.left, row) && rowMatches(node.right, row)
    case 'or':
      return rowMatches(node.left, row) || rowMatches(node.right, row)
    case 'not':
      return !rowMatches(node.operand, row)
    case 'call': {
      const value = row[node.field]
      if (value === undefined) return true
      if (value === null) return false
      const [have, want] = [lower(value), lower(node.value)]
      return node.fn === 'contains' ? have.includes(want) : node.fn === 'startswith' ? have.startsWith(want) : have.endsWith(want)
    }
    case 'compare': {
      const value = row[node.field]
      if (value === undefined) return true
      if (node.value.type === 'null') return (value === null) === (node.op === 'eq')
      if (value === null) return node.op === 'ne'
      const literal = node.value.value
      const numeric = typeof literal === 'number' || typeof value === 'number'
      const c = numeric ? Number(value) - Number(literal) : lower(value).localeCompare(lower(literal))
      return { eq: c === 0, ne: c !== 0, gt: c > 0, ge: c >= 0, lt: c < 0, le: c <= 0 }[node.op]
    }
  }
}

const collator = new Intl.Collator(undefined, { sensitivity: 'base' })

/** The first pair of neighbouring rows out of the order, read both by code units and by a case-insensitive collation; undefined when in order. */
export function orderBreak(rows: readonly ReadRow[], orderBy: string): [ReadRow, ReadRow, string] | undefined {
  const items = orderBy.split(',').map((item) => {
    const [field = '', direction = 'asc'] = item.trim().split(/\s+/)
    return { field, sign: direction.toLowerCase() === 'desc' ? -1 : 1 }
  })
  const compare = (a: unknown, b: unknown, how: 'ordinal' | 'collated') => {
    if (typeof a === 'number' && typeof b === 'number') return a - b
    const [x, y] = [String(a), String(b)]
    return how === 'ordinal' ? (x < y ? -1 : x > y ? 1 : 0) : collator.compare(x, y)
  }
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1] as ReadRow, rows[i] as ReadRow]
    for (const { field, sign } of items) {
      const [x, y] = [a[field], b[field]]
      // Where nulls go differs between databases; a pair with one says nothing.
      if (x === null || y === null || x === undefined || y === undefined) break
      const ordinal = compare(x, y, 'ordinal') * sign
      const collated = compare(x, y, 'collated') * sign
      if (ordinal > 0 && collated > 0) return [a, b, field]
      if (ordinal < 0 || collated < 0) break
    }
  }
  return undefined
}

/** A client of the target for one replay: the run's session, no conformance checks (only what the client relied on counts). */
function plainClient(ctx: ContractContext): Client {
  return targetClient(ctx.target, ctx.client.token, undefined, ctx.client.transport)
}

const refusedOnly = (interaction: Interaction) => successfulAnswer(interaction) === undefined

interface ReplayOptions {
  /** Relation keys of the file as the installation knows them. */
  relationKey(recorded: string): string
}

/** A row sample per table, read once per run. */
function sampler() {
  const memo = new Map<string, Promise<ReadRow[]>>()
  return (client: Client, relationKey: string | undefined): Promise<ReadRow[]> => {
    const key = relationKey ?? ''
    let rows = memo.get(key)
    if (rows === undefined) {
      rows = client.rows({ top: 50, ...(relationKey === undefined ? {} : { relationKey }) })
      memo.set(key, rows)
      rows.catch(() => memo.delete(key))
    }
    return rows
  }
}

type Say = (ok: boolean, what: string, detail?: string) => boolean

/** Checks an answer's status: a refusal is the first thing that would break the client. */
function accepted(answer: Answer, fail: Say): boolean {
  const problem = answer.body !== null && typeof answer.body === 'object' ? (answer.body as { detail?: unknown; title?: unknown }) : undefined
  const why = typeof problem?.detail === 'string' ? `: ${problem.detail.slice(0, 200)}` : ''
  return fail(answer.status >= 200 && answer.status < 300, `the installation refuses the request (${answer.status}${why})`)
}

async function replayQuery(
  ctx: ContractContext,
  interaction: Interaction,
  options: ReplayOptions,
  sample: ReturnType<typeof sampler>,
  fail: Say,
): Promise<void> {
  const q = interaction.request.query ?? {}
  const client = plainClient(ctx)
  const relationKey = q.relationKey === undefined ? undefined : options.relationKey(q.relationKey)
  const rows = await sample(client, relationKey)
  const filled = q.filter === undefined ? undefined : instantiate(q.filter, rows)
  if (q.filter !== undefined && filled === undefined) ctx.skip(`the recorded filter ${q.filter} cannot be read back`)
  const base = {
    ...(filled === undefined ? {} : { filter: filled.text }),
    ...(q.orderBy === undefined ? {} : { orderBy: q.orderBy }),
    ...(relationKey === undefined ? {} : { relationKey }),
  }
  const operation = interaction.operation as OperationId
  const send = (text: string) =>
    operation === 'queryItemsLegacy'
      ? client.call('queryItemsLegacy', { query: Object.fromEntries(new URLSearchParams(text)) })
      : client.call('queryItems', { body: { query: text } })
  const recorded = successfulAnswer(interaction)
  if (q.count === true) {
    const answer = await send(queryText({ ...base, count: true }))
    if (!accepted(answer, fail)) return
    if (recorded?.body !== undefined) for (const line of shapeProblems(recorded.body, answer.body)) fail(false, line)
    const count = (answer.body as { Items?: Array<{ _FieldCount_?: unknown }> }).Items?.[0]?._FieldCount_
    if (typeof count === 'number' && count <= 200) {
      const all = await send(queryText({ ...base, top: 200 }))
      if (all.status === 200 && Array.isArray(all.body))
        fail(all.body.length === count, `the count (${count}) is not the number of rows the same filter reads (${all.body.length})`)
    }
    return
  }
  const top = q.top
  const answer = await send(queryText({ ...base, ...(top === undefined ? {} : { top }) }))
  if (!accepted(answer, fail)) return
  const page = answer.body
  if (!fail(Array.isArray(page), `the installation answers ${typeof page} instead of rows`)) return
  const list = page as ReadRow[]
  const notes: string[] = []
  if (recorded?.body !== undefined) for (const line of shapeProblems(recorded.body, list, 'the answer', notes)) fail(false, line)
  for (const note of notes.slice(0, 3)) ctx.note(note)
  if (list.length === 0) ctx.note(`no row answered ${filled === undefined ? '' : `filter ${filled.text} `}to check fields, order and filter on`)
  if (top !== undefined) fail(list.length <= top, `the installation ignores $top (asked for ${top}, answered ${list.length} rows)`)
  if (filled !== undefined) {
    const stray = list.find((row) => !rowMatches(filled.tree, row))
    fail(stray === undefined, `the installation ignores the filter (row ${String(stray?.Id)} does not match ${q.filter} with the value taken from its rows)`)
  }
  if (q.orderBy !== undefined) {
    const broken = orderBreak(list, q.orderBy)
    fail(
      broken === undefined,
      `the installation ignores the order (row ${String(broken?.[0].Id)} comes before row ${String(broken?.[1].Id)} although ${broken?.[2]} says otherwise)`,
    )
  }
  if (q.skip === true) {
    const size = Math.max(2, Math.min(top ?? 10, 50))
    const first = await send(queryText({ ...base, top: size, skip: 0 }))
    const second = await send(queryText({ ...base, top: size, skip: 1 }))
    const [a, b] = [first.body, second.body] as [ReadRow[], ReadRow[]]
    if (first.status === 200 && second.status === 200 && Array.isArray(a) && Array.isArray(b) && a.length >= 2) {
      fail(b[0]?.Id === a[1]?.Id, `the installation ignores $skip (the page after skipping 1 row starts with row ${String(b[0]?.Id)}, not ${String(a[1]?.Id)})`)
    } else if (!accepted(second, fail)) return
  }
}

async function replayAttachments(ctx: ContractContext, interaction: Interaction, fail: Say): Promise<void> {
  const client = plainClient(ctx)
  const holder = await ctx.facts.attachmentHolder(client)
  if ('none' in holder) ctx.skip(holder.none)
  const relationKey = holder.relationKey ?? undefined
  const recorded = successfulAnswer(interaction)
  const list = await client.call('listAttachments', {
    query: { $filter: `ParentId eq ${holder.row.Id}`, ...(relationKey === undefined ? {} : { relationKey }) },
  })
  if (!accepted(list, fail)) return
  if (interaction.operation === 'listAttachments') {
    if (recorded?.body !== undefined) for (const line of shapeProblems(recorded.body, list.body)) fail(false, line)
    return
  }
  const file = (list.body as Array<{ Id: number; IsFolder: boolean; TypeImage: string }>).find((record) => !record.IsFolder)
  if (file === undefined) ctx.skip('the row with attachments has no file at its top level')
  const download = await client.call('downloadAttachment', { body: { ids: [file.Id], ...(relationKey === undefined ? {} : { rk: relationKey }) } })
  if (!accepted(download, fail)) return
  const mediaType = download.contentType.split(';')[0]?.trim().toLowerCase() ?? ''
  const received = recorded?.mediaTypes ?? []
  // The client received files with their own media types; an installation that labels them otherwise breaks a client that reads the label.
  if (received.length > 0 && file.TypeImage !== '')
    fail(
      mediaType === file.TypeImage.toLowerCase(),
      `the installation labels a ${file.TypeImage} file ${mediaType} (the client received files with their own media type: ${received.join(', ')})`,
    )
  fail(/^attachment\b/i.test(download.headers['content-disposition'] ?? ''), 'the installation sends no Content-Disposition: attachment')
}

async function replaySignIn(ctx: ContractContext, interaction: Interaction, fail: Say): Promise<void> {
  const { target } = ctx
  const anonymous = targetClient(target, undefined, undefined, ctx.client.transport)
  // The form the client used, whatever the installation's release would take.
  const answer = await anonymous.signInAnswer(target.credentials, interaction.operation as 'signIn' | 'signInWithoutOrganization' | 'signInLegacy')
  if (!accepted(answer, fail)) return
  const recorded = successfulAnswer(interaction)
  if (recorded?.body !== undefined) for (const line of shapeProblems(recorded.body, answer.body)) fail(false, line)
}

async function replayRowLink(ctx: ContractContext, interaction: Interaction, sample: ReturnType<typeof sampler>, fail: Say): Promise<void> {
  const client = plainClient(ctx)
  const [row] = await sample(client, undefined)
  if (row === undefined) ctx.skip('the installation has no master row to link to')
  const answer = await client.call('generateRowLink', { body: { relationKey: null, values: row.Id, valueType: 1 } })
  if (!accepted(answer, fail)) return
  const recorded = successfulAnswer(interaction)
  if (recorded?.body !== undefined) for (const line of shapeProblems(recorded.body, answer.body)) fail(false, line)
}

/** The contracts of a usage file, one per interaction, in the file's order. */
export function usageContracts(interactions: readonly Interaction[], options: ReplayOptions): Contract[] {
  const sample = sampler()
  return interactions.map((interaction, index): Contract => {
    const title = describeInteraction(interaction)
    const writes = WRITES.has(interaction.operation)
    return {
      id: `usage.${interaction.operation}.${index + 1}`,
      title,
      severity: 'high',
      holdsTo: 'description',
      writes,
      needs: writes ? ['writes'] : [],
      async run(ctx) {
        const fail: Say = (ok, what) => ctx.check(ok, { expected: `what the client relied on: ${title}`, received: what })
        if (refusedOnly(interaction)) {
          const statuses = Object.entries(interaction.answers).map(
            ([status, answer]) => `${status}${answer.problems === undefined ? '' : ` ${answer.problems.join(', ')}`}`,
          )
          ctx.skip(`the client met only refusals here (${statuses.join('; ')}); a refusal depends on what the test did, so it is not replayed`)
        }
        // Without the contracts' conformance checks: only what the client relied on counts.
        const write = {
          ctx: { ...ctx, client: plainClient(ctx) },
          interaction,
          fail,
          relationKey: options.relationKey,
          shapeProblems: (shape: Shape, value: unknown) => shapeProblems(shape, value),
        }
        if (interaction.operation === 'saveItems') return replaySave(write)
        if (interaction.operation === 'deleteItems') return replayDelete(write)
        if (writes)
          ctx.skip(
            `${interaction.operation} is not replayed: it sends or reserves what no cleanup can take back; the contracts of verify --allow-writes check it with --action-id, --email-to or --storage-id`,
          )
        if (interaction.operation === 'queryItems' || interaction.operation === 'queryItemsLegacy') return replayQuery(ctx, interaction, options, sample, fail)
        if (interaction.operation === 'listAttachments' || interaction.operation === 'downloadAttachment') return replayAttachments(ctx, interaction, fail)
        if (SIGN_INS.has(interaction.operation)) return replaySignIn(ctx, interaction, fail)
        if (interaction.operation === 'generateRowLink') return replayRowLink(ctx, interaction, sample, fail)
        ctx.skip(`${interaction.operation} is not replayed`)
      },
    }
  })
}
