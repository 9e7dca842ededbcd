/** Get Identities: reserved values are integers, and never handed out twice. */
import { createOwnMaster, identityFieldFor, shown } from './support.ts'
import type { Contract, ContractContext } from './types.ts'

/** The master storage's Identity field; the contract is skipped when it is not known. */
async function masterIdentityField(ctx: ContractContext): Promise<string> {
  const field = identityFieldFor(ctx, await ctx.facts.masters(ctx.client), 'master')
  if (field === undefined) ctx.skip('the Identity field is not known: pass --identity-field')
  return field
}

export const reservedOnce: Contract = {
  id: 'identities.reserved-once',
  title: 'Get Identities answers the count of increasing integers asked for, none of them handed out again by the next call',
  severity: 'high',
  holdsTo: 'description',
  writes: true,
  needs: ['writes', 'storage'],
  deviation: 'identity-stuck',
  statements: ['identities.values', 'identities.reserved'],
  data: "two reservations of 2 values for the master storage's Identity field: the second shares no value with the first",
  async run(ctx: ContractContext) {
    const field = await masterIdentityField(ctx)
    const storageId = ctx.target.storageId as string
    const first = await ctx.client.identities(storageId, field, 2)
    const second = await ctx.client.identities(storageId, field, 2)
    const integers = (values: unknown[]) => values.length === 2 && values.every((v) => Number.isSafeInteger(v)) && (values[1] as number) > (values[0] as number)
    ctx.check(integers(first) && integers(second), { expected: 'two increasing integers per call', received: `${shown(first)} then ${shown(second)}` })
    ctx.check(!second.some((value) => first.includes(value)), {
      expected: 'the second call to reserve other values than the first',
      received: `${shown(first)} then ${shown(second)}`,
    })
  },
}

export const sequential: Contract = {
  id: 'identities.sequential',
  title: 'Get Identities answers <count> sequential integers: each one more than the one before',
  severity: 'medium',
  holdsTo: 'description',
  writes: true,
  needs: ['writes', 'storage'],
  deviation: 'identity-gaps',
  statements: ['identities.values'],
  data: "three values reserved at once for the master storage's Identity field",
  async run(ctx: ContractContext) {
    const field = await masterIdentityField(ctx)
    const values = await ctx.client.identities(ctx.target.storageId as string, field, 3)
    ctx.check(values.length === 3 && values.every((v, i) => Number.isSafeInteger(v) && (i === 0 || v === (values[i - 1] as number) + 1)), {
      expected: '3 sequential integers (n, n+1, n+2)',
      received: shown(values),
    })
  },
}

export const notUsedBySaves: Contract = {
  id: 'identities.not-used-by-saves',
  title: 'Values Get Identities reserved are not given to a row a save creates afterwards',
  severity: 'high',
  holdsTo: 'description',
  writes: true,
  needs: ['writes', 'storage'],
  deviation: 'reservation-not-held',
  statements: ['identities.reserved'],
  data: "two values reserved for the master storage's Identity field, then an own row created with that field null: the value the service assigns it",
  async run(ctx: ContractContext) {
    const field = await masterIdentityField(ctx)
    const reserved = await ctx.client.identities(ctx.target.storageId as string, field, 2)
    const own = await createOwnMaster(ctx)
    const assigned = own.row[field]
    ctx.check(!reserved.includes(assigned as number), {
      expected: `row ${own.id} to get a ${field} other than the reserved ${shown(reserved)}`,
      received: shown(assigned),
    })
  },
}

export const contracts = [reservedOnce, sequential, notUsedBySaves]
