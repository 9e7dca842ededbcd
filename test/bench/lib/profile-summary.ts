/** Reading a `.cpuprofile` for `npm run bench:profile` (test/bench/profile.ts): self time by where it went. */

/** What V8's `--cpu-prof` writes (the members read here). */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

/** Where a sampled function's time is counted, from its script. */
export function componentOf(functionName: string, url: string): string {
  if (functionName === 'writev' || functionName === 'writeUtf8String' || functionName === 'writeBuffer') return 'the kernel: writing answers'
  if (functionName === '(garbage collector)') return 'garbage collection'
  if (functionName === '(program)' || functionName === '(idle)') return functionName === '(idle)' ? 'idle' : 'V8 and native code, unattributed'
  if (url.includes('/node_modules/fastify/') || url.includes('/node_modules/find-my-way/') || url.includes('/node_modules/light-my-request/'))
    return 'Fastify (routing, hooks, reply)'
  if (url.includes('/node_modules/')) return `other packages (${url.replace(/^.*\/node_modules\//, '').split('/')[0]})`
  if (url.startsWith('node:')) return "Node's HTTP, streams and events"
  // Code with no script is what `new Function` made: the quick body check's (src/document/quick-accept.ts) is named so.
  if (url === '' && functionName.startsWith('quickCheck')) return 'the mock: src/document/ (quick check code it makes)'
  // Nameless code with no script: what `new Function` made, which in the mock is the tables' row code (src/store/engine/table.ts).
  if (url === '' && (functionName === '' || functionName === 'anonymous')) return 'the mock: src/store/engine/ (row code it makes)'
  if (url === '') return 'V8 and native code, unattributed'
  const file = url.replace(/^.*\/dist\//, '')
  if (file.endsWith('json-body.js') && functionName === 'parseWhole') return 'JSON.parse of the body'
  // By folder, one level below src/ (src/store/engine/ apart from src/store/); a file directly in src/ by its name.
  const folder = /^(src\/[^/]+(?:\/[^/]+)?)\/[^/]+$/.exec(file)?.[1]
  return `the mock: ${folder === undefined ? file : `${folder}/`}`
}

/** Self time per component and per function over the samples between `from` and `to` (µs, the profile's clock). */
export function summarise(
  profile: CpuProfile,
  from: number,
  to: number,
): { byComponent: Map<string, number>; byFunction: Map<string, number>; sampled: number } {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
  const byComponent = new Map<string, number>()
  const byFunction = new Map<string, number>()
  let at = profile.startTime
  let sampled = 0
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] as number
    if (at < from || at > to) continue
    const frame = nodes.get(profile.samples[i] as number)
    if (frame === undefined) continue
    const delta = profile.timeDeltas[i + 1] ?? 0
    sampled += delta
    const component = componentOf(frame.functionName, frame.url)
    byComponent.set(component, (byComponent.get(component) ?? 0) + delta)
    const name = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(dist|node_modules)\//, '')}:${frame.lineNumber + 1}`
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta)
  }
  return { byComponent, byFunction, sampled }
}
