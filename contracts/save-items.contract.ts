/** Save: temporary Ids, detail rows, row versions, stale versions refused, the success flag's spelling. */
import { RANGES } from '../spec/versions.ts'
import { rowVersion, successOf } from '../src/client/client.ts'
import { userFields } from './facts.ts'
import { linksTo, newKeyIds, saveAndClaim } from './ownership.ts'
import { createOwnMaster, fieldToRewrite, identityFieldFor, linkFieldsOf, ownRowWithStaleVersion, readById, shown, updateMaster } from './support.ts'
import type { Contract, ContractContext } from './types.ts'

export const temporaryIdsRemapped: Contract = {
  id: 'save.temporary-ids-remapped',
  title: 'A row saved with a temporary negative Id gets a real Id, named in ReturnData.PrimaryKeyData under its temporary Id',
  severity: 'critical',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'temp-ids-unmapped',
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
  async run(ctx: ContractContext) {
    const relationKey = ctx.target.relationKey as string
    const details = (await ctx.facts.details(ctx.client)) ?? []
    const [template] = details
    if (template === undefined) ctx.skip('no detail row to copy the fields of')
    const identity = identityFieldFor(ctx, details, relationKey)
    // Fields that point at other rows are left out: the master a detail row is saved under links it (Save, Rows[].Details).
    const fields = userFields(template, [...(identity === undefined ? [] : [identity]), ...linkFieldsOf(details, await ctx.facts.masters(ctx.client))])
    const own = await createOwnMaster(ctx)
    const line = { Id: -1, TIMESTAMP: null, ...(identity === undefined ? {} : { [identity]: null }), ...fields }
    // Added to an existing master "in the same way" as an update: the master's Id and version, and the new rows.
    const { outcome, reported, found } = await saveAndClaim(ctx, {
      relationKey,
      count: 2,
      fields,
      save: () => ctx.client.save({ Rows: [{ Row: { Id: own.id, TIMESTAMP: own.version }, Details: [{ RelationKey: relationKey, Rows: [line, line] }] }] }),
      reported: (result) => newKeyIds(result),
      belongs: linksTo(own.id),
    })
    ctx.require(outcome.ok, { expected: 'two new detail rows sent with Id -1 to be saved', received: ctx.show(outcome.result) })
    const created = [...reported, ...found]
    ctx.check(created.length === 2, { expected: `2 new detail rows under master ${own.id}`, received: `${created.length} found (Id ${created.map((r) => String(r.Id)).join(', ') || 'none'})` })
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
  title: 'An update with a TIMESTAMP that is no longer the row\'s is refused, and the row stays as it was',
  severity: 'critical',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'accept-stale',
  async run(ctx: ContractContext) {
    const { own, stale: version, current } = await ownRowWithStaleVersion(ctx)
    // The description reports the outcome in the success flag; a refusal status is no acceptance either.
    const stale = await ctx.client.call('saveItems', { body: { Rows: [{ Row: { Id: own.id, TIMESTAMP: version, ...fieldToRewrite(own) }, Details: [] }] } })
    ctx.check(stale.status >= 400 || successOf(stale.body) === false, { expected: 'the stale update to be refused (flag false)', received: `${stale.status} ${ctx.show(stale.body, 200)}` })
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

export const contracts = [temporaryIdsRemapped, detailRowsCreated, rowVersionChanges, staleRefused, flagSpelling, refusalShape]
