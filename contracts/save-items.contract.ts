/** Save: temporary Ids, detail rows, row versions, stale versions refused, the success flag's spelling. */
import { RANGES } from '../spec/versions.ts'
import { ApiError, rowVersion, successOf, type ReadRow } from '../src/client/client.ts'
import { userFields } from './facts.ts'
import { formOf } from './information.ts'
import { matchesSent, newKeyIds, saveAndClaim } from './ownership.ts'
import { lookUpById } from './reads.ts'
import {
  addOwnDetails,
  claimedBy,
  createOwnMaster,
  fieldToRewrite,
  identityFieldFor,
  ownRowWithStaleVersion,
  readById,
  sameValue,
  shown,
  updateMaster,
  updateOneField,
} from './support.ts'
import type { Contract, ContractContext } from './types.ts'

export const temporaryIdsRemapped: Contract = {
  id: 'save.temporary-ids-remapped',
  title: 'A row saved with a temporary negative Id gets a real Id, named in ReturnData.PrimaryKeyData under its temporary Id',
  severity: 'critical',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'temp-ids-unmapped',
  statements: ['resources.new-id-replaced', 'resources.result-primary-keys', 'save.body'],
  data: "a new master row copied from the first row's user fields, read back by the Id PrimaryKeyData['-1'] names",
  async run(ctx: ContractContext) {
    const own = await createOwnMaster(ctx)
    ctx.check(own.id > 0, { expected: 'a positive Id for the new row', received: String(own.id) })
  },
}

export const detailRowsCreated: Contract = {
  id: 'save.detail-rows-created',
  title: 'New detail rows, each sent with Id -1 as the description shows, are all created under their master',
  severity: 'high',
  holdsTo: 'description',
  writes: true,
  needs: ['writes', 'relation-key'],
  releases: RANGES.current,
  statements: ['save.details', 'save.detail-to-existing'],
  data: 'two new detail rows (Id -1 each, copies of the first detail row without its links) added to an own master by an update; both found under it',
  async run(ctx: ContractContext) {
    const own = await createOwnMaster(ctx)
    const { outcome, reported, found } = await addOwnDetails(ctx, own, 2)
    ctx.require(outcome.ok, { expected: 'two new detail rows sent with Id -1 to be saved', received: ctx.show(outcome.result) })
    const created = [...reported, ...found]
    ctx.check(created.length === 2, {
      expected: `2 new detail rows under master ${own.id}`,
      received: `${created.length} found (Id ${created.map((r) => String(r.Id)).join(', ') || 'none'})`,
    })
  },
}

export const rowVersionChanges: Contract = {
  id: 'save.row-version-changes',
  title: 'An update with the TIMESTAMP read last is saved and gives the row a new TIMESTAMP',
  severity: 'high',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'version-unchanged',
  statements: ['save.update-procedure', 'resources.timestamp-required'],
  data: 'an own row updated with the TIMESTAMP read last; its TIMESTAMP read again',
  async run(ctx: ContractContext) {
    const own = await createOwnMaster(ctx)
    const updated = await updateMaster(ctx.client, own.id, own.version, fieldToRewrite(own))
    ctx.require(updated.ok, { expected: 'the update to be saved', received: ctx.show(updated.result) })
    const after = await readById(ctx.client, own.id)
    ctx.require(after !== undefined, { expected: `row ${own.id} to be readable after the update`, received: 'no row' })
    ctx.check(rowVersion(after.TIMESTAMP) !== own.version, { expected: `a TIMESTAMP other than ${own.row.TIMESTAMP}`, received: after.TIMESTAMP })
  },
}

export const staleRefused: Contract = {
  id: 'save.stale-refused',
  title: "An update with a TIMESTAMP that is no longer the row's is refused, and the row stays as it was",
  severity: 'critical',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'accept-stale',
  statements: ['resources.timestamp-required', 'save.update-procedure'],
  data: 'an own row updated once, then updated again with its first TIMESTAMP; the row read back',
  async run(ctx: ContractContext) {
    const { own, stale: version, current } = await ownRowWithStaleVersion(ctx)
    // The description reports the outcome in the success flag; a refusal status is no acceptance either.
    const stale = await ctx.client.call('saveItems', { body: { Rows: [{ Row: { Id: own.id, TIMESTAMP: version, ...fieldToRewrite(own) }, Details: [] }] } })
    ctx.check(stale.status >= 400 || successOf(stale.body) === false, {
      expected: 'the stale update to be refused (flag false)',
      received: `${stale.status} ${ctx.show(stale.body, 200)}`,
    })
    const after = await readById(ctx.client, own.id)
    ctx.check(after?.TIMESTAMP === current.TIMESTAMP, { expected: `the row's TIMESTAMP to stay ${current.TIMESTAMP}`, received: String(after?.TIMESTAMP) })
  },
}

export const flagSpelling: Contract = {
  id: 'save.flag-spelling',
  title: 'The save result spells its success flag as the release does: IsSaveSuccessfully from 3.0, IsSaveSuccesfully before',
  severity: 'medium',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'misspelled-flag',
  statements: ['resources.result-flag', 'errors.success-200', 'versioning.older-forms'],
  data: "an update of an own row; the result's flag spelled as the target's release spells it",
  async run(ctx: ContractContext) {
    const own = await createOwnMaster(ctx)
    const updated = await updateMaster(ctx.client, own.id, own.version, fieldToRewrite(own))
    const other = ctx.profile.saveFlag === 'IsSaveSuccessfully' ? 'IsSaveSuccesfully' : 'IsSaveSuccessfully'
    const result = updated.result as Record<string, unknown>
    // An installation may send both spellings; the release's own must be there.
    ctx.check(typeof result[ctx.profile.saveFlag] === 'boolean' && (!(other in result) || result[other] === result[ctx.profile.saveFlag]), {
      expected: `${ctx.profile.saveFlag} as a boolean (and ${other}, if sent, the same)`,
      received: shown(Object.keys(result)),
    })
  },
}

export const refusalShape: Contract = {
  id: 'save.refusal-shape',
  title: 'A refused save answers 200 with the flag false and one ReturnStates entry (Code CONCURRENCY) per problem',
  severity: 'low',
  holdsTo: 'mock',
  writes: true,
  needs: ['writes'],
  async run(ctx: ContractContext) {
    const { own, stale: version } = await ownRowWithStaleVersion(ctx)
    const stale = await ctx.client.call('saveItems', { body: { Rows: [{ Row: { Id: own.id, TIMESTAMP: version, ...fieldToRewrite(own) }, Details: [] }] } })
    const states = (stale.body as { ReturnStates?: Array<{ Code?: unknown; Id?: unknown }> }).ReturnStates
    ctx.check(stale.status === 200 && states?.length === 1 && states[0]?.Code === 'CONCURRENCY' && states[0].Id === own.id, {
      expected: `200 with one ReturnStates entry { Code: CONCURRENCY, Id: ${own.id} }`,
      received: `${stale.status} ${ctx.show(states)}`,
    })
  },
}

/** The fields of a read row that differ from what was sent or kept: `name: sent -> read`. */
function differences(expected: Record<string, unknown>, row: ReadRow): string[] {
  return Object.entries(expected)
    .filter(([name, value]) => !sameValue(value, row[name]))
    .map(([name, value]) => `${name}: ${shown(value)} -> ${shown(row[name])}`)
}

export const createdReadBack: Contract = {
  id: 'save.created-read-back',
  title: 'A new row reads back with every field it was saved with, and the Identity field assigned by the service',
  severity: 'critical',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'create-drops-number',
  statements: ['save.body', 'resources.identity-assigned'],
  data: "a copy of the first master row's user fields (texts, numbers, flags), read back by the Id the save named and compared field by field",
  async run(ctx: ContractContext) {
    const saved = new Date()
    const own = await createOwnMaster(ctx)
    // The description gives no form nor time zone for a row's DT_CREATION: what came is information.
    ctx.note(
      `DT_CREATION of the new row is ${formOf(own.row.DT_CREATION)} ${shown(own.row.DT_CREATION)}; it was saved at about ${saved.toISOString().slice(0, 19)}Z`,
    )
    const wrong = differences(own.fields, own.row)
    ctx.check(wrong.length === 0, { expected: `row ${own.id} to read back every field as saved`, received: wrong.join('; ') })
    if (own.identityField !== undefined && own.identityField in own.row) {
      const masters = await ctx.facts.masters(ctx.client)
      const value = own.row[own.identityField]
      ctx.check(value !== null && value !== '' && !masters.some((row) => row[own.identityField as string] === value), {
        expected: `the Identity field ${own.identityField}, sent as null, assigned a value no other row holds`,
        received: shown(value),
      })
    }
  },
}

export const updateApplied: Contract = {
  id: 'save.update-applied',
  title: 'An update that sends one field with Id and TIMESTAMP changes that field to the value sent',
  severity: 'critical',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'update-ignored',
  statements: ['save.update-procedure', 'save.update-only-fields'],
  data: 'an own row; one text (else number) field set to a value another row of the application holds, so the new value is one the application takes and differs from the old',
  async run(ctx: ContractContext) {
    const { field, value, after } = await updateOneField(ctx)
    ctx.check(sameValue(value, after[field]), { expected: `${field} to read back as ${shown(value)}`, received: shown(after[field]) })
  },
}

/** Fields an update changes besides the ones it sends: the version and the last-update stamps (and the row order, which the description leaves open). */
const CHANGED_BY_UPDATE = ['Id', 'TIMESTAMP', 'DT_LAST_UPDATE', 'USER_ID_LAST_UPDATE', 'ROW_ORDER']

export const updateKeepsUnsent: Contract = {
  id: 'save.update-keeps-unsent',
  title: 'An update that sends only some fields leaves every other field as it was',
  severity: 'critical',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'update-nulls-unsent',
  statements: ['save.update-only-fields'],
  data: 'an own row with every user field filled (a copy of the first row); one field updated alone; every other user field, the Identity field and the creation stamps read back and compared',
  async run(ctx: ContractContext) {
    const { field, before, after } = await updateOneField(ctx)
    const kept = Object.fromEntries(Object.entries(before).filter(([name]) => name !== field && !CHANGED_BY_UPDATE.includes(name)))
    const wrong = differences(kept, after)
    ctx.check(wrong.length === 0, { expected: `every field but ${field} as it was before the update`, received: wrong.join('; ') })
  },
}

export const twoRowsTwoKeys: Contract = {
  id: 'save.two-rows-two-keys',
  title: "A save of two new rows (-1, -2) names each one's Id under its own temporary Id",
  severity: 'high',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'temp-ids-swapped',
  statements: ['resources.new-id-replaced', 'save.body', 'resources.result-primary-keys'],
  data: "two new rows copied from two master rows that differ in a user field; each Id PrimaryKeyData names is read back and must hold its own row's values",
  async run(ctx: ContractContext) {
    const masters = await ctx.facts.masters(ctx.client)
    const identity = identityFieldFor(ctx, masters, 'master')
    const without = identity === undefined ? [] : [identity]
    const [first] = masters
    if (first === undefined) ctx.skip('the application has no master row to copy the fields of')
    const a = userFields(first, without)
    const second = masters.find((row) => Object.entries(claimedBy(a)).some(([name, value]) => !sameValue(value, row[name])))
    if (second === undefined) ctx.skip('the first master rows do not differ in a text field, so two new rows could not be told apart')
    const b = userFields(second, without)
    const row = (id: number, fields: typeof a) => ({
      Row: { Id: id, TIMESTAMP: null, ...(identity === undefined ? {} : { [identity]: null }), ...fields },
      Details: [],
    })
    const { outcome, reported, found } = await saveAndClaim(ctx, {
      relationKey: null,
      count: 2,
      fields: {},
      save: () => ctx.client.save({ Rows: [row(-1, a), row(-2, b)] }),
      reported: (result) => newKeyIds(result),
      belongs: (read) => matchesSent(read, claimedBy(a)) || matchesSent(read, claimedBy(b)),
    })
    ctx.require(outcome.ok, { expected: 'two new rows to be saved', received: ctx.show(outcome.result) })
    ctx.check(reported.length + found.length === 2, { expected: '2 new rows', received: `${reported.length + found.length}` })
    for (const [temporary, fields] of [
      ['-1', a],
      ['-2', b],
    ] as const) {
      const [id] = newKeyIds(outcome.result, temporary)
      const read = id === undefined ? undefined : [...reported, ...found].find((r) => Number(r.Id) === id)
      ctx.check(read !== undefined && matchesSent(read, claimedBy(fields)), {
        expected: `PrimaryKeyData["${temporary}"] to name the row sent as ${temporary} (${ctx.show(claimedBy(fields))})`,
        received: read === undefined ? `Id ${String(id)}, not one of the new rows` : `row ${id} holding ${ctx.show(claimedBy(userFields(read, without)))}`,
      })
    }
  },
}

export const duplicateIdentityRefused: Contract = {
  id: 'save.duplicate-identity-refused',
  title: 'A new row sent with an Identity value another row holds is refused (a duplicate key error), and no row is created',
  severity: 'high',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'accept-duplicate-identity',
  statements: ['errors.duplicate-key'],
  data: "an own row; a second new row sent with the first one's Identity value (never another user's row's value)",
  async run(ctx: ContractContext) {
    const own = await createOwnMaster(ctx)
    const field = own.identityField
    const value = field === undefined ? undefined : own.row[field]
    if (field === undefined || !Number.isSafeInteger(value)) ctx.skip('the Identity field is not known or holds no whole number: pass --identity-field')
    let refused: string
    let created = 0
    try {
      const { outcome, reported, found } = await saveAndClaim(ctx, {
        relationKey: null,
        count: 1,
        fields: claimedBy(own.fields),
        save: () => ctx.client.save({ Rows: [{ Row: { Id: -1, TIMESTAMP: null, ...own.fields, [field]: value as number }, Details: [] }] }),
        reported: (result) => newKeyIds(result, '-1'),
        belongs: (row) => Number(row.Id) !== own.id,
      })
      refused = outcome.ok ? '' : 'the success flag false'
      created = reported.length + found.length
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error
      refused = `${error.status}`
    }
    ctx.check(refused !== '' && created === 0, {
      expected: `the save of a second row with ${field} ${String(value)} to be refused, creating nothing`,
      received: refused === '' ? `saved (${created} row created)` : `refused (${refused}) but ${created} row created`,
    })
  },
}

/** A counter of a save or delete result, as sent. */
const counterOf = (result: unknown, name: 'CreatedItems' | 'UpdatedItems' | 'DeletedItems'): unknown =>
  result !== null && typeof result === 'object' ? (result as Record<string, unknown>)[name] : undefined

export const countersCount: Contract = {
  id: 'save.counters-count',
  title: 'A save that created a row reports CreatedItems of at least 1, an update UpdatedItems of at least 1, a delete DeletedItems of at least 1',
  severity: 'medium',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'counters-zero',
  statements: ['resources.result-counters'],
  data: "an own row created, updated once (one field written back) and deleted; each result's counter named for what it did must be at least 1 (how much more it counts, masters and details together or not, is not stated)",
  async run(ctx: ContractContext) {
    const atLeastOne = (value: unknown) => typeof value === 'number' && value >= 1
    const own = await createOwnMaster(ctx)
    const created = counterOf(own.createResult, 'CreatedItems')
    ctx.check(atLeastOne(created), { expected: 'CreatedItems at least 1 for a save that created a row', received: shown(created) })
    const updated = await updateMaster(ctx.client, own.id, own.version, fieldToRewrite(own))
    ctx.require(updated.ok, { expected: 'the update to be saved', received: ctx.show(updated.result) })
    ctx.check(atLeastOne(counterOf(updated.result, 'UpdatedItems')), {
      expected: 'UpdatedItems at least 1 for a save that updated a row',
      received: shown(counterOf(updated.result, 'UpdatedItems')),
    })
    const after = await readById(ctx.client, own.id)
    ctx.require(after !== undefined, { expected: `row ${own.id} to be readable after the update`, received: 'no row' })
    const deleted = await ctx.client.delete([{ relationKey: null, rows: [{ Id: own.id, TIMESTAMP: rowVersion(String(after.TIMESTAMP)) }] }])
    ctx.require(deleted.ok, { expected: 'the delete to succeed', received: ctx.show(deleted.result) })
    ctx.check(atLeastOne(counterOf(deleted.result, 'DeletedItems')), {
      expected: 'DeletedItems at least 1 for a delete that deleted a row',
      received: shown(counterOf(deleted.result, 'DeletedItems')),
    })
    // Forgotten by the cleanup only when a read by its Id answered no row.
    if ((await lookUpById(ctx.client, own.id)).state === 'gone') ctx.cleanup.done({ relationKey: null, id: own.id })
  },
}

export const contracts = [
  temporaryIdsRemapped,
  detailRowsCreated,
  rowVersionChanges,
  staleRefused,
  flagSpelling,
  refusalShape,
  createdReadBack,
  updateApplied,
  updateKeepsUnsent,
  twoRowsTwoKeys,
  duplicateIdentityRefused,
  countersCount,
]
