/** Delete: rows named with their version are gone; a stale version deletes nothing. */
import { deleteBody } from '../src/client/client.ts'
import { lookUpById } from './reads.ts'
import { RANGES } from '../spec/versions.ts'
import { rowVersion } from '../src/client/client.ts'
import { addOwnDetails, createOwnMaster, ownRowWithStaleVersion, readById, shown } from './support.ts'
import type { Contract, ContractContext } from './types.ts'

export const removesRow: Contract = {
  id: 'delete.removes-row',
  title: 'A row deleted with its Id and TIMESTAMP is reported deleted and cannot be read afterwards',
  severity: 'critical',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'delete-noop',
  statements: ['delete.removes', 'delete.legacy-body', 'errors.success-200'],
  data: 'an own row deleted with its Id and TIMESTAMP (in the older body for releases before 3.0), then read by its Id',
  async run(ctx: ContractContext) {
    const own = await createOwnMaster(ctx)
    const deleted = await ctx.client.delete([{ relationKey: null, rows: [{ Id: own.id, TIMESTAMP: own.version }] }])
    ctx.check(deleted.ok && Number(deleted.result.DeletedItems) >= 1, {
      expected: 'the success flag true and DeletedItems at least 1',
      received: ctx.show(deleted.result),
    })
    const after = await lookUpById(ctx.client, own.id)
    ctx.check(after.state === 'gone', {
      expected: `no row ${own.id} after its delete`,
      received: after.state === 'found' ? ctx.show(after.row) : after.state === 'unclear' ? after.why : 'no row',
    })
    // Forgotten by the cleanup only when a read by its Id answered no row.
    if (after.state === 'gone') ctx.cleanup.done({ relationKey: null, id: own.id })
  },
}

export const staleRefused: Contract = {
  id: 'delete.stale-refused',
  title: "A delete with a TIMESTAMP that is no longer the row's deletes nothing",
  severity: 'critical',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'accept-stale',
  statements: ['resources.timestamp-required', 'delete.removes'],
  data: 'an own row updated once, then deleted with its first TIMESTAMP; the row read back',
  async run(ctx: ContractContext) {
    const { own, stale, current } = await ownRowWithStaleVersion(ctx)
    const answer = await ctx.client.call('deleteItems', { body: deleteBody(ctx.profile, [{ relationKey: null, rows: [{ Id: own.id, TIMESTAMP: stale }] }]) })
    const after = await readById(ctx.client, own.id)
    ctx.check(after !== undefined, {
      expected: `row ${own.id} still there after a delete with its old TIMESTAMP`,
      received: `gone (${answer.status} ${ctx.show(answer.body, 150)})`,
    })
    if (after !== undefined)
      ctx.check(after.TIMESTAMP === current.TIMESTAMP, { expected: `the row as updated (TIMESTAMP ${current.TIMESTAMP})`, received: after.TIMESTAMP })
  },
}

export const deletedCount: Contract = {
  id: 'delete.deleted-count',
  title: 'DeletedItems counts exactly the rows the request named',
  severity: 'low',
  holdsTo: 'mock',
  writes: true,
  needs: ['writes'],
  async run(ctx: ContractContext) {
    const [a, b] = [await createOwnMaster(ctx), await createOwnMaster(ctx)]
    const deleted = await ctx.client.delete([
      {
        relationKey: null,
        rows: [
          { Id: a.id, TIMESTAMP: a.version },
          { Id: b.id, TIMESTAMP: b.version },
        ],
      },
    ])
    ctx.check(deleted.ok && deleted.result.DeletedItems === 2, { expected: 'DeletedItems 2', received: shown(deleted.result.DeletedItems) })
  },
}

export const masterAndDetailGroups: Contract = {
  id: 'delete.master-and-detail-groups',
  title: 'One delete body with a master group and a detail group deletes the rows of both',
  severity: 'high',
  holdsTo: 'description',
  writes: true,
  needs: ['writes', 'relation-key'],
  releases: RANGES.current,
  deviation: 'delete-first-group-only',
  statements: ['delete.groups', 'delete.removes'],
  data: 'two own master rows, one with an own detail row; one body names the other master (RelationKey null) and the detail row (RelationKey the relation key); both read back by Id',
  async run(ctx: ContractContext) {
    const holder = await createOwnMaster(ctx)
    const { outcome, reported, found } = await addOwnDetails(ctx, holder, 1)
    const [detail] = [...reported, ...found]
    ctx.require(outcome.ok && detail !== undefined, { expected: 'an own detail row to be created', received: ctx.show(outcome.result) })
    const master = await createOwnMaster(ctx)
    const relationKey = ctx.target.relationKey as string
    const deleted = await ctx.client.delete([
      { relationKey: null, rows: [{ Id: master.id, TIMESTAMP: master.version }] },
      { relationKey, rows: [{ Id: Number(detail.Id), TIMESTAMP: rowVersion(String(detail.TIMESTAMP)) }] },
    ])
    ctx.check(deleted.ok, { expected: 'the success flag true', received: ctx.show(deleted.result) })
    for (const [id, key, what] of [
      [master.id, null, 'master'],
      [Number(detail.Id), relationKey, 'detail'],
    ] as const) {
      const after = await lookUpById(ctx.client, id, key)
      ctx.check(after.state === 'gone', {
        expected: `no ${what} row ${id} after the delete`,
        received: after.state === 'found' ? `still there (${ctx.show(after.row, 120)})` : after.state === 'unclear' ? after.why : 'no row',
      })
      if (after.state === 'gone') ctx.cleanup.done({ relationKey: key, id })
    }
  },
}

export const contracts = [removesRow, staleRefused, deletedCount, masterAndDetailGroups]
