import { describe, expect, it } from 'vitest'
import { Cleanup } from '../../contracts/cleanup.ts'

describe("the cleanup's list of the rows not removed (a second Ctrl-C)", () => {
  it('lists the rows of a save under way as perhaps created until the save is settled, then what it recorded', () => {
    const cleanup = new Cleanup()
    cleanup.add({ relationKey: null, id: 7 })
    const settled = cleanup.underway('OrderLines', 2)
    const perhaps = 'OrderLines row: perhaps created, Id unknown: its save was under way when the run quit'
    expect(cleanup.pending()).toEqual(['master row 7', perhaps, perhaps])
    cleanup.add({ relationKey: 'OrderLines', id: 31 })
    cleanup.addUnknown('OrderLines', 1, 'not found')
    settled()
    expect(cleanup.pending()).toEqual(['master row 7', 'OrderLines row 31', 'OrderLines row: created, Id unknown: not found'])
    expect(cleanup.size).toBe(3)
  })
})
