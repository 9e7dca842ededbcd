/**
 * What `npm run bench:compare` reads back from valgrind's callgrind, as pure functions (tested in
 * test/bench/compare.test.ts): the instruction total of a dump, and each function's own share of it.
 */

/**
 * The instructions (event `Ir`) a callgrind dump counted: its `summary:` line (the dump's total),
 * else its `totals:` line, read at Ir's place in the `events:` line. Throws on a file that is not a
 * dump or counts no Ir: a figure that is not there must not read as zero.
 */
export function parseCallgrindTotal(text: string): number {
  const lines = text.split('\n')
  const eventsLine = lines.find((line) => line.startsWith('events:'))
  if (eventsLine === undefined) throw new Error('not a callgrind dump: no "events:" line')
  const events = eventsLine.slice('events:'.length).trim().split(/\s+/)
  const at = events.indexOf('Ir')
  if (at === -1) throw new Error(`the dump counts no instructions (events: ${events.join(' ')})`)
  // summary is written at the end of a dump; totals, when present, is its check sum.
  const totalLine = lines.find((line) => line.startsWith('summary:')) ?? lines.find((line) => line.startsWith('totals:'))
  if (totalLine === undefined) throw new Error('the dump has no "summary:" or "totals:" line (was it cut short?)')
  const figures = totalLine
    .slice(totalLine.indexOf(':') + 1)
    .trim()
    .split(/\s+/)
  const value = Number(figures[at])
  if (!Number.isFinite(value) || figures[at] === undefined) throw new Error(`unreadable total: ${totalLine}`)
  return value
}

/** One function's own instructions in a callgrind dump. */
export interface FunctionCost {
  instructions: number
  /** The function as callgrind names it; code without a symbol (JIT code) by its address, `0x…`. */
  name: string
  /** The binary or library it is in (`/usr/bin/node`), `???` when callgrind knows none. */
  object: string
}

/**
 * Each function's self cost in a callgrind dump (event `Ir`), most first: every cost line counted
 * for the function it stands under (`fn=`), except the line after a `calls=` line, which is the
 * inclusive cost of that call and belongs to the callee. Read from the dump itself rather than from
 * `callgrind_annotate`, which for a dump taken mid-run (`callgrind_control -d`) gives the frames on
 * the stack at the zero (the event loop, thread starts) their inclusive cost as their own.
 * Compressed names (`(12) name`, then `(12)`) are resolved per kind: files, functions, objects.
 */
export function parseCallgrindFunctions(text: string): FunctionCost[] {
  const lines = text.split('\n')
  const eventsLine = lines.find((line) => line.startsWith('events:'))
  if (eventsLine === undefined) throw new Error('not a callgrind dump: no "events:" line')
  const at = eventsLine.slice('events:'.length).trim().split(/\s+/).indexOf('Ir')
  if (at === -1) throw new Error('the dump counts no instructions')
  const positions = (lines.find((line) => line.startsWith('positions:')) ?? 'positions: line').slice('positions:'.length).trim().split(/\s+/).length
  const names = { fn: new Map<string, string>(), ob: new Map<string, string>() }
  const resolve = (kind: 'fn' | 'ob', value: string): string => {
    const match = /^\((\d+)\)(?:\s+(.*))?$/.exec(value.trim())
    if (match === null) return value.trim()
    if (match[2] !== undefined) names[kind].set(match[1] as string, match[2])
    return names[kind].get(match[1] as string) ?? `(${match[1]})`
  }
  const costs = new Map<string, FunctionCost>()
  let object = '???'
  let fn = '???'
  let afterCalls = false
  for (const line of lines) {
    if (line === '' || line.startsWith('#')) continue
    const first = line.charCodeAt(0)
    // A cost line starts with its position: a number, +n, -n or *.
    if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 42) {
      if (afterCalls) {
        afterCalls = false
        continue
      }
      const figures = line.trim().split(/\s+/)
      const value = Number(figures[positions + at] ?? 0)
      if (!Number.isFinite(value) || value === 0) continue
      const key = `${fn}\u0000${object}`
      const cost = costs.get(key) ?? { instructions: 0, name: fn, object }
      cost.instructions += value
      costs.set(key, cost)
      continue
    }
    const eq = line.indexOf('=')
    if (eq === -1) continue
    const key = line.slice(0, eq)
    const value = line.slice(eq + 1)
    if (key === 'ob') object = resolve('ob', value)
    else if (key === 'fn') fn = resolve('fn', value)
    else if (key === 'cob') resolve('ob', value)
    else if (key === 'cfn') resolve('fn', value)
    else if (key === 'calls') afterCalls = true
  }
  return [...costs.values()].sort((a, b) => b.instructions - a.instructions || a.name.localeCompare(b.name))
}
