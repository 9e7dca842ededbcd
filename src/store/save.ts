import { relationKeyOf } from './guid.ts'
import { describeValue, ownValue, setOwn } from './model/field-values.ts'
import { dateTimeIn, TYPE_FORMS } from './model/data-types.ts'
import { valueFits } from '../wire/type-forms.ts'
import { Plan, type TablePlan } from './plan.ts'
import { decodeRowVersion } from '../wire/row-version.ts'
import type { AppTables, StoreState } from './state.ts'
import { isSystemField } from './model/system-fields.ts'
import { duplicateValues, hasRules, valueBreaches } from './field-rules.ts'
import { LockedRows, nameRows } from './refusals.ts'
import { PrimaryKeys } from './model/primary-keys.ts'
import { SegmentedSet } from './model/segmented-map.ts'
import type {
  Deps,
  FieldDef,
  FieldRules,
  FieldType,
  FieldValue,
  ReturnState,
  Row,
  SaveCommand,
  SaveOutcome,
  SaveResult,
  StoreChanges,
  WireRow,
} from './model/types.ts'
import type { Table } from './engine/table.ts'

/**
 * Checks a whole save and decides every write, changing nothing.
 * One `ReturnState` per problem, all of them; the caller applies `changes` only when ok.
 *
 * Rules (the description, Save, plus what the mock chooses where it is silent; see docs/behaviour.md):
 * - `Id` < 0 creates: the row gets the table's next Id; `TIMESTAMP` must be null (or absent).
 *   The Identity field null or absent gets the next Identity value not taken and not reserved;
 *   an explicit value is kept unless another row holds it (DUPLICATE_KEY).
 * - `Id` > 0 updates: the row must exist (NOT_FOUND) and `TIMESTAMP` must equal its current
 *   version (CONCURRENCY); only the fields sent change, plus DT_LAST_UPDATE,
 *   USER_ID_LAST_UPDATE and a new TIMESTAMP. A null TIMESTAMP matches no version (CONCURRENCY). A master
 *   sent with nothing to change (only to carry new details) is not written and not counted,
 *   but a TIMESTAMP sent with it must still be current.
 * - Temporary Ids must be unique among the request's masters (PrimaryKeyData is keyed by them).
 *   New detail rows may all carry `-1`, as the description shows them (Save, `Details[].Rows`):
 *   a detail row has no temporary-Id identity of its own. PrimaryKeyData names each new detail
 *   row by its position among its master's rows of that relation key, across the master's groups
 *   of that key (`"OrderLines[1]"`), and also by its temporary Id (`"OrderLines:-2"`) when no
 *   other new row of that master and relation key shares it.
 *   The same existing row twice in one request is a DUPLICATE_ROW problem (the second sight of
 *   it would update a version the first has already replaced).
 * - Unknown field names: UNKNOWN_FIELD; a value of the wrong type: INVALID_VALUE. System
 *   fields other than Id, TIMESTAMP and the Identity field are ignored (the store owns them,
 *   and clients echo rows they read back into saves).
 * - Details: the relation key must be the application's (UNKNOWN_RELATION_KEY). New detail rows
 *   get the master field (`MasterId`) set to the master's real Id, whatever was sent; an updated
 *   detail row must already hang off that master (NOT_FOUND otherwise) and cannot be moved.
 * - Counters count masters and details together.
 * - A TIMESTAMP may be sent as the integer (pinned) or as the base64 text read results carry.
 * - The application's field rules (a fixture field's `rules`, field-rules.ts) are kept: each
 *   broken rule is a problem of its own code (REQUIRED, READ_ONLY, BELOW_MINIMUM, ABOVE_MAXIMUM,
 *   TOO_LONG, NOT_ALLOWED, NOT_UNIQUE) naming the field.
 * - A locked row (locks.ts) is not written: updating it is LOCKED, and so is creating or updating
 *   a detail row under a locked master (a master's lock covers its record, details included).
 *   Each locked row is named once, so `LockedItems` counts rows.
 * - Problems of locks and rules also name the row's table and the row as the product names it
 *   (refusals.ts); the older codes keep the shape clients were written against.
 */
export function planSave(state: StoreState, cmd: SaveCommand, deps: Deps): SaveOutcome {
  const planning = beginSave(state, cmd, deps)
  planning.step()
  return planning.finish()
}

/**
 * A save's plan made a slice of masters at a time (`planSave` is this, run to the end in one go):
 * `step` plans masters, each with its details, until `stop` says so (asked after every master) or
 * every master is planned, and answers whether they all are; `finish` then checks what needs the
 * whole save (unique fields) and gives the outcome, exactly `planSave`'s for the same data.
 * Changes nothing, as `planSave`. The plan reads the store as it is at each step, so it holds only
 * while no write lands between the steps: the caller compares the store's generation (the plan's
 * changes carry the one it began at, and `applyChanges` refuses any other) and plans again if one did.
 */
export interface SavePlanning {
  step(stop?: () => boolean): boolean
  finish(): SaveOutcome
}

/** Begins a save's plan against the store as it is now (`SavePlanning`). */
export function beginSave(state: StoreState, cmd: SaveCommand, deps: Deps): SavePlanning {
  const app = state.apps.get(cmd.applicationId)
  if (app === undefined) {
    const outcome: SaveOutcome = {
      ok: false,
      returnStates: [{ code: 'NOT_FOUND', message: `application ${cmd.applicationId} does not exist`, relationKey: null, id: 0 }],
    }
    return { step: () => true, finish: () => outcome }
  }
  const ctx: Context = {
    plan: new Plan(state),
    now: dateTimeIn(deps.now(), state.fixture.organization.timeZone),
    userId: cmd.userId,
    problems: [],
    locked: new LockedRows(state.locks, cmd.applicationId),
    values: new Map(),
    identityKey: quotedName(app.def.master.identityField),
  }
  const masters = ctx.plan.of(app.master)
  const result: SaveResult = {
    created: 0,
    updated: 0,
    primaryKeys: new PrimaryKeys(),
    identityField: app.def.master.identityField,
    storageName: app.def.master.name,
    firstMasterId: null,
  }
  // Segmented: a big save fills them row by row, beside the plan's maps (model/segmented-map.ts).
  const masterTempIds = new SegmentedSet<number>()
  const seen = new SegmentedSet<string>()
  let next = 0
  let checked = false
  // The plan's writes copied out in the steps too, once every master is planned and checked (a big save's rows are many).
  let copying: Generator<void, StoreChanges, void> | undefined
  let changes: StoreChanges | undefined
  const step = (stop?: () => boolean): boolean => {
    while (next < cmd.masters.length) {
      planMaster(ctx, app, masters, cmd.masters[next++] as SaveCommand['masters'][number], result, masterTempIds, seen)
      if (next < cmd.masters.length && stop?.() === true) return false
    }
    if (!checked) {
      checkUnique(ctx)
      checked = true
    }
    if (ctx.problems.length > 0) return true
    copying ??= ctx.plan.changesInSteps()
    for (;;) {
      const copied = copying.next()
      if (copied.done === true) {
        changes = copied.value
        return true
      }
      if (stop?.() === true) return false
    }
  }
  const finish = (): SaveOutcome => {
    if (changes === undefined) step()
    if (ctx.problems.length > 0) return { ok: false, returnStates: nameRows(app, ctx.problems) }
    return { ok: true, changes: changes as StoreChanges, result }
  }
  return { step, finish }
}

/** One master row with its details, planned into `ctx` and counted in `result`. */
function planMaster(
  ctx: Context,
  app: AppTables,
  masters: TablePlan,
  master: SaveCommand['masters'][number],
  result: SaveResult,
  masterTempIds: SegmentedSet<number>,
  seen: SegmentedSet<string>,
): void {
  const saved = planRow(ctx, masters, master.row, { relationKey: null, masterId: null, tempIds: masterTempIds, seen })
  count(result, saved)
  const masterId = saved.id
  result.firstMasterId ??= masterId
  // The master's new keys as JSON members (see primary-keys.ts); Ids are digits, names quoted once.
  let newKeys = saved.kind === 'created' ? `"Id":"${saved.id}",${ctx.identityKey}:"${saved.identity}"` : ''
  // Per relation key: how far the master's rows of that key have got, and its new rows (their
  // positions, temporary Ids and Ids side by side, no object per row).
  const created = new Map<string, NewDetails>()
  for (const group of master.details) {
    const table = app.details.get(relationKeyOf(group.relationKey))
    if (table === undefined) {
      const known = [...app.details.keys()].join(', ') || '(none)'
      ctx.problems.push(
        problem(
          'UNKNOWN_RELATION_KEY',
          `relation key ${group.relationKey} is not one of application ${app.def.name}'s (${known})`,
          group.relationKey,
          master.row.Id,
        ),
      )
      continue
    }
    const details = ctx.plan.of(table)
    let news = created.get(group.relationKey)
    if (news === undefined) created.set(group.relationKey, (news = { rows: 0, positions: [], tempIds: [], ids: [] }))
    const scope: RowScope = { relationKey: group.relationKey, masterId, tempIds: null, seen }
    for (const row of group.rows) {
      const position = news.rows++
      const detail = planRow(ctx, details, row, scope)
      count(result, detail)
      if (detail.kind === 'created') {
        news.positions.push(position)
        news.tempIds.push(row.Id)
        news.ids.push(detail.id)
      }
    }
  }
  for (const [relationKey, news] of created) {
    const uses = new Map<number, number>()
    for (const tempId of news.tempIds) uses.set(tempId, (uses.get(tempId) ?? 0) + 1)
    for (let i = 0; i < news.ids.length; i++) {
      const id = news.ids[i] as number
      const tempId = news.tempIds[i] as number
      newKeys += `${newKeys === '' ? '' : ','}${positionKey(relationKey, news.positions[i] as number)}:"${id}"`
      if (uses.get(tempId) === 1) newKeys += `,${tempIdKey(relationKey, tempId)}:"${id}"`
    }
  }
  if (newKeys !== '' && masterId !== null) result.primaryKeys.add(saved.kind === 'created' ? master.row.Id : masterId, newKeys)
}

/**
 * Unique fields, once every row is planned: no two rows of a table may hold one value once the save
 * is written, so swaps within one request pass and two new rows with one value do not. Only tables
 * with a unique field and writes are read (one pass over the field's values).
 */
function checkUnique(ctx: Context): void {
  for (const plan of ctx.plan.tablePlans()) {
    if (plan.puts.size === 0) continue
    for (const field of plan.table.storage.fields) {
      if (field.rules?.unique !== true) continue
      const values: Array<readonly [number, FieldValue]> = []
      plan.table.forEachValue(field.name, (id, value) => {
        if (!plan.deletes.has(id) && !plan.puts.has(id)) values.push([id, value])
      })
      for (const [id, row] of plan.puts) values.push([id, ownValue(row, field.name) ?? null])
      for (const { id, value, holder } of duplicateValues(values, new Set(plan.puts.keys()))) {
        const sent = plan.sentIds.get(id) ?? id
        const other = plan.sentIds.get(holder) ?? holder
        const what = plan.table.relationKey === null ? 'master row' : `${plan.table.relationKey} row`
        ctx.problems.push(
          problem(
            'NOT_UNIQUE',
            `${what} ${sent}: ${field.name} is unique in storage ${plan.table.storage.name}, and ${describeValue(value)} is held by ${other < 0 ? 'new ' : ''}row ${other} too`,
            plan.table.relationKey,
            sent,
            field.name,
          ),
        )
      }
    }
  }
}

/**
 * PrimaryKeyData's names of new detail rows (`OrderLines[0]`, `OrderLines:-2`) as JSON strings,
 * made once: clients send the same positions and temporary Ids save after save.
 */
const keyNames = new Map<string, { positions: string[]; tempIds: Map<number, string> }>()
/** At most this many relation keys as sent (a GUID in any case), and names of each. */
const RELATION_KEYS_KEPT = 64
const KEY_NAMES_KEPT = 4096

function keyNamesOf(relationKey: string): { positions: string[]; tempIds: Map<number, string> } {
  let names = keyNames.get(relationKey)
  if (names === undefined) {
    names = { positions: [], tempIds: new Map() }
    if (keyNames.size < RELATION_KEYS_KEPT) keyNames.set(relationKey, names)
  }
  return names
}

function positionKey(relationKey: string, position: number): string {
  const { positions } = keyNamesOf(relationKey)
  if (position < KEY_NAMES_KEPT) return (positions[position] ??= quotedName(`${relationKey}[${position}]`))
  return quotedName(`${relationKey}[${position}]`)
}

function tempIdKey(relationKey: string, tempId: number): string {
  const { tempIds } = keyNamesOf(relationKey)
  let name = tempIds.get(tempId)
  if (name === undefined) {
    name = quotedName(`${relationKey}:${tempId}`)
    if (tempIds.size < KEY_NAMES_KEPT) tempIds.set(tempId, name)
  }
  return name
}

/** A key name as a JSON string (relation keys and field names may hold any character). */
const quotedName = (name: string): string => JSON.stringify(name)

interface Context {
  plan: Plan
  /** DateTime number of the installation's wall clock (the mock's clock, in the fixture's time zone). */
  now: number
  userId: number
  problems: ReturnState[]
  /** Locked rows of the application, each named once. */
  locked: LockedRows
  /** The values of the row being planned (checkFields), one map reused row after row. */
  values: Map<string, FieldValue>
  /** The master storage's Identity field name as a JSON string, for PrimaryKeyData. */
  identityKey: string
}

/** A master's new rows of one relation key: how many rows of that key it had, and the new ones' positions among them, temporary Ids and Ids. */
interface NewDetails {
  rows: number
  positions: number[]
  tempIds: number[]
  ids: number[]
}

interface RowScope {
  /** null for master rows. */
  relationKey: string | null
  /** For detail rows: the master's real Id (null when the master itself could not be planned). */
  masterId: number | null
  /** Temporary Ids already used among the request's masters; null for detail rows, which may repeat them. */
  tempIds: SegmentedSet<number> | null
  /** Existing rows already seen in this request, as `relationKey:Id`. */
  seen: SegmentedSet<string>
}

type Planned = { kind: 'created'; id: number; identity: number } | { kind: 'updated' | 'unchanged'; id: number } | { kind: 'failed'; id: number | null }

function count(result: SaveResult, planned: Planned): void {
  if (planned.kind === 'created') result.created++
  else if (planned.kind === 'updated') result.updated++
}

function problem(code: ReturnState['code'], message: string, relationKey: string | null, id: number, field?: string): ReturnState {
  return field === undefined ? { code, message, relationKey, id } : { code, message, relationKey, id, field }
}

function planRow(ctx: Context, plan: TablePlan, row: WireRow, scope: RowScope): Planned {
  const id = row.Id
  const what = scope.relationKey === null ? 'master row' : `${scope.relationKey} row`
  if (!Number.isSafeInteger(id) || id === 0) {
    ctx.problems.push(
      problem(
        'INVALID_VALUE',
        `${what} Id must be a negative temporary Id or an existing Id, got ${describeValue(id)}`,
        scope.relationKey,
        Number(id) || 0,
        'Id',
      ),
    )
    return { kind: 'failed', id: null }
  }
  const before = ctx.problems.length
  const values = checkFields(ctx, plan, row, scope, what)
  if (id < 0) return planCreate(ctx, plan, row, scope, what, values, before)
  return planUpdate(ctx, plan, row, scope, what, values, before)
}

/** A field a client may send a value for: its type and, for a Numeric field, its decimals. */
interface Sendable {
  type: FieldType
  decimals: number | undefined
}
/** System fields (and the Identity field): the store's to set, skipped when sent. */
const SYSTEM = 'system'

/**
 * A table as a save reads it, made once per table (a table's fields never change): its field names,
 * one lookup per member sent (user fields with their type, system fields marked), and the fields
 * that carry rules, the only ones a row's rules are checked on.
 */
interface SaveShape {
  sendable: Map<string, Sendable | typeof SYSTEM>
  ruled: ReadonlyArray<FieldDef & { rules: FieldRules }>
}
const shapes = new WeakMap<Table, SaveShape>()
function shapeOf(table: Table): SaveShape {
  let shape = shapes.get(table)
  if (shape !== undefined) return shape
  const sendable = new Map<string, Sendable | typeof SYSTEM>()
  for (const [name, type] of table.fields) {
    sendable.set(name, isSystemField(name, table.storage) ? SYSTEM : { type, decimals: table.fieldDefs.get(name)?.decimals })
  }
  const ruled = table.storage.fields.filter((field): field is FieldDef & { rules: FieldRules } => hasRules(field) && field.name !== table.masterField)
  shapes.set(table, (shape = { sendable, ruled }))
  return shape
}

/** The user-field values sent, checked; unknown fields and bad values become problems. */
function checkFields(ctx: Context, plan: TablePlan, row: WireRow, scope: RowScope, what: string): Map<string, FieldValue> {
  const storage = plan.table.storage
  const { sendable } = shapeOf(plan.table)
  // One map for every row of the save: a row's values are read before the next row is checked.
  const values = ctx.values
  values.clear()
  for (const name of Object.keys(row)) {
    // An own member, `__proto__` too: an own data member shadows Object.prototype's accessor.
    const value = row[name]
    if (value === undefined) continue
    const field = sendable.get(name)
    if (field === SYSTEM || (field === undefined && isSystemField(name, storage))) continue
    if (field === undefined) {
      ctx.problems.push(problem('UNKNOWN_FIELD', `${what} ${row.Id}: ${name} is not a field of storage ${storage.name}`, scope.relationKey, row.Id, name))
      continue
    }
    if (!valueFits(field.type, value, field.decimals)) {
      const decimals = field.decimals === undefined ? '' : ` with at most ${field.decimals} decimals`
      ctx.problems.push(
        problem(
          'INVALID_VALUE',
          `${what} ${row.Id}: ${name} is a ${field.type} field, whose values are ${TYPE_FORMS[field.type]}${decimals}; got ${describeValue(value)}`,
          scope.relationKey,
          row.Id,
          name,
        ),
      )
      continue
    }
    values.set(name, value as FieldValue)
  }
  return values
}

/**
 * The storage's field rules against a row as sent (`values`: the user fields that fit their type;
 * a field sent with a value of the wrong type is an INVALID_VALUE already and is not judged again).
 */
function checkRules(ctx: Context, plan: TablePlan, row: WireRow, scope: RowScope, what: string, values: Map<string, FieldValue>, creating: boolean): void {
  for (const field of shapeOf(plan.table).ruled) {
    if (!values.has(field.name) && ownValue(row, field.name) !== undefined) continue
    for (const breach of valueBreaches(field, values.get(field.name), creating)) {
      ctx.problems.push(problem(breach.code, `${creating ? 'new ' : ''}${what} ${row.Id}: ${breach.reason}`, scope.relationKey, row.Id, field.name))
    }
  }
}

/** The integer version a client sent, null when it sent none, undefined when it is not a version. */
function sentVersion(value: unknown): number | null | undefined {
  if (value === null || value === undefined) return null
  if (Number.isSafeInteger(value) && (value as number) >= 0) return value as number
  if (typeof value === 'string') return decodeRowVersion(value) ?? undefined
  return undefined
}

function planCreate(ctx: Context, plan: TablePlan, row: WireRow, scope: RowScope, what: string, values: Map<string, FieldValue>, before: number): Planned {
  const storage = plan.table.storage
  const tempId = row.Id
  if (scope.tempIds !== null) {
    if (scope.tempIds.has(tempId)) {
      ctx.problems.push(
        problem('DUPLICATE_TEMPORARY_ID', `temporary Id ${tempId} is used twice among the masters of this request`, scope.relationKey, tempId, 'Id'),
      )
    }
    scope.tempIds.add(tempId)
  }
  if (row.TIMESTAMP !== null && row.TIMESTAMP !== undefined) {
    ctx.problems.push(
      problem(
        'INVALID_VALUE',
        `new ${what} ${tempId}: TIMESTAMP must be null on creation, got ${describeValue(row.TIMESTAMP)}`,
        scope.relationKey,
        tempId,
        'TIMESTAMP',
      ),
    )
  }
  const id = plan.takeId()
  const sentIdentity = ownValue(row, storage.identityField)
  let identity: number
  if (sentIdentity === null || sentIdentity === undefined) {
    identity = plan.takeIdentity()
  } else if (!Number.isSafeInteger(sentIdentity)) {
    ctx.problems.push(
      problem(
        'INVALID_VALUE',
        `new ${what} ${tempId}: ${storage.identityField} must be an integer or null, got ${describeValue(sentIdentity)}`,
        scope.relationKey,
        tempId,
        storage.identityField,
      ),
    )
    identity = plan.takeIdentity()
  } else {
    identity = sentIdentity as number
    if (plan.identityTaken(identity, null)) {
      ctx.problems.push(
        problem(
          'DUPLICATE_KEY',
          `new ${what} ${tempId}: ${storage.identityField} ${identity} is already taken in storage ${storage.name}`,
          scope.relationKey,
          tempId,
          storage.identityField,
        ),
      )
    }
    plan.claimIdentity(identity, id)
  }
  plan.sentIds.set(id, tempId)
  checkRules(ctx, plan, row, scope, what, values, true)
  if (ctx.problems.length > before) return { kind: 'failed', id }
  const masterField = plan.table.masterField
  // Written into a blank row of the table's shape: a row built by spreading or field by field is a slow dictionary.
  const next = plan.table.blankRow()
  for (const [name, value] of values) setOwn(next, name, value)
  if (masterField !== null) setOwn(next, masterField, scope.masterId)
  next.Id = id
  setOwn(next, storage.identityField, identity)
  next.CT_ATTACHMENTS = null
  next.DT_CREATION = ctx.now
  next.DT_LAST_UPDATE = ctx.now
  next.ROW_ORDER = plan.nextRowOrder++
  next.TIMESTAMP = ctx.plan.takeVersion()
  next.USER_ID_CREATION = ctx.userId
  next.USER_ID_LAST_UPDATE = ctx.userId
  plan.puts.set(id, next)
  return { kind: 'created', id, identity }
}

function planUpdate(ctx: Context, plan: TablePlan, row: WireRow, scope: RowScope, what: string, values: Map<string, FieldValue>, before: number): Planned {
  const storage = plan.table.storage
  const id = row.Id
  const current = plan.current(id)
  if (current === undefined) {
    ctx.problems.push(problem('NOT_FOUND', `${what} ${id} does not exist in storage ${storage.name}`, scope.relationKey, id))
    return { kind: 'failed', id: scope.relationKey === null ? id : null }
  }
  const masterField = plan.table.masterField
  if (masterField !== null && current[masterField] !== scope.masterId) {
    const master = scope.masterId === null ? 'a new master' : `master ${scope.masterId}`
    ctx.problems.push(problem('NOT_FOUND', `${what} ${id} does not belong to ${master}`, scope.relationKey, id))
  }
  // A detail row can only be sent inside its master, and an existing master is always planned
  // through here: a locked master is named LOCKED before any of its detail rows, which its lock
  // covers (in the per-row save mode too, where the master and its details are one operation).
  if (ctx.locked.has(scope.relationKey, id))
    ctx.locked.report(ctx.problems, scope.relationKey, id, `${what} ${id} is locked by another user; it is not written`)
  checkRules(ctx, plan, row, scope, what, values, false)
  const seenKey = `${scope.relationKey ?? ''}:${id}`
  if (scope.seen.has(seenKey)) {
    ctx.problems.push(problem('DUPLICATE_ROW', `${what} ${id} appears more than once in this request`, scope.relationKey, id))
  }
  scope.seen.add(seenKey)
  if (masterField !== null && values.has(masterField)) {
    if (values.get(masterField) !== current[masterField]) {
      ctx.problems.push(
        problem('INVALID_VALUE', `${what} ${id}: ${masterField} cannot change; a detail row stays under its master`, scope.relationKey, id, masterField),
      )
    }
    values.delete(masterField)
  }
  const sentIdentity = ownValue(row, storage.identityField)
  if (sentIdentity !== null && sentIdentity !== undefined && sentIdentity !== current[storage.identityField]) {
    if (!Number.isSafeInteger(sentIdentity)) {
      ctx.problems.push(
        problem(
          'INVALID_VALUE',
          `${what} ${id}: ${storage.identityField} must be an integer, got ${describeValue(sentIdentity)}`,
          scope.relationKey,
          id,
          storage.identityField,
        ),
      )
    } else if (plan.identityTaken(sentIdentity as number, id)) {
      ctx.problems.push(
        problem(
          'DUPLICATE_KEY',
          `${what} ${id}: ${storage.identityField} ${String(sentIdentity)} is already taken in storage ${storage.name}`,
          scope.relationKey,
          id,
          storage.identityField,
        ),
      )
    } else {
      plan.claimIdentity(sentIdentity as number, id)
      values.set(storage.identityField, sentIdentity as number)
    }
  }
  const version = sentVersion(row.TIMESTAMP)
  const changes = values.size > 0
  if (version === undefined) {
    ctx.problems.push(
      problem(
        'INVALID_VALUE',
        `${what} ${id}: TIMESTAMP must be the row version read with Get Items, got ${describeValue(row.TIMESTAMP)}`,
        scope.relationKey,
        id,
        'TIMESTAMP',
      ),
    )
  } else if (version === null) {
    // The description allows null in saves; a null version matches no row, as in deletes.
    if (changes)
      ctx.problems.push(
        problem('CONCURRENCY', `${what} ${id}: TIMESTAMP null matches no row version; send the one read with Get Items`, scope.relationKey, id, 'TIMESTAMP'),
      )
  } else if (version !== current.TIMESTAMP) {
    ctx.problems.push(
      problem(
        'CONCURRENCY',
        `${what} ${id} was changed by someone else: TIMESTAMP ${version} is not the current ${current.TIMESTAMP}`,
        scope.relationKey,
        id,
        'TIMESTAMP',
      ),
    )
  }
  if (ctx.problems.length > before) return { kind: 'failed', id }
  if (!changes) return { kind: 'unchanged', id }
  const next: Row = { ...current }
  for (const [name, value] of values) setOwn(next, name, value)
  next.DT_LAST_UPDATE = ctx.now
  next.USER_ID_LAST_UPDATE = ctx.userId
  next.TIMESTAMP = ctx.plan.takeVersion()
  // `current` has every column in order already (the table's or the plan's row).
  plan.puts.set(id, next)
  return { kind: 'updated', id }
}
