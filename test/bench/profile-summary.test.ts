import { describe, expect, it } from 'vitest'
import { componentOf, summarise, type CpuProfile } from './lib/profile-summary.ts'

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 0 })

/** Samples 100 µs apart from t = 1000: writev, the store's plan, Fastify's reply, idle, then writev again. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('writev', '') },
    { id: 2, callFrame: frame('planMaster', 'file:///work/app/dist/src/store/save.js') },
    { id: 3, callFrame: frame('serialize', 'file:///work/app/node_modules/fastify/lib/reply.js') },
    { id: 4, callFrame: frame('(idle)', '') },
    { id: 5, callFrame: frame('grow', 'file:///work/app/dist/src/store/engine/columns.js') },
  ],
  startTime: 1000,
  samples: [1, 2, 3, 4, 5, 1],
  timeDeltas: [100, 100, 100, 100, 100, 100],
}

describe('the profile summary of npm run bench:profile', () => {
  it('names where time went: the kernel, packages, Node, and the mock by folder', () => {
    expect(componentOf('writev', '')).toBe('the kernel: writing answers')
    expect(componentOf('(garbage collector)', '')).toBe('garbage collection')
    expect(componentOf('find', 'file:///x/node_modules/find-my-way/index.js')).toBe('Fastify (routing, hooks, reply)')
    expect(componentOf('v1', 'file:///x/node_modules/uuid/dist/index.js')).toBe('other packages (uuid)')
    expect(componentOf('emit', 'node:events')).toBe("Node's HTTP, streams and events")
    expect(componentOf('parseWhole', 'file:///x/dist/src/http/json-body.js')).toBe('JSON.parse of the body')
    expect(componentOf('grow', 'file:///x/dist/src/store/engine/columns.js')).toBe('the mock: src/store/engine/')
    expect(componentOf('now', 'file:///x/dist/src/deps.js')).toBe('the mock: src/deps.js')
    expect(componentOf('', '')).toBe('the mock: src/store/engine/ (row code it makes)')
    expect(componentOf('utf8Slice', '')).toBe('V8 and native code, unattributed')
    expect(componentOf('quickCheck12', '')).toBe('the mock: src/document/ (quick check code it makes)')
  })

  it('counts only the samples taken while the load ran, each for the time to the next one', () => {
    // Samples at 1100 (writev) ... 1600 (writev); the window 1150-1450 holds the plan, the reply and idle.
    const { byComponent, byFunction, sampled } = summarise(profile, 1150, 1450)
    expect(sampled).toBe(300)
    expect(Object.fromEntries(byComponent)).toEqual({ 'the mock: src/store/': 100, 'Fastify (routing, hooks, reply)': 100, idle: 100 })
    expect(byFunction.get('planMaster src/store/save.js:1')).toBe(100)
    expect(summarise(profile, 0, 10_000).byComponent.get('the kernel: writing answers')).toBe(100)
  })
})
