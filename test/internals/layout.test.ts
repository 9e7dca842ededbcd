import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * The import direction of src/, read from the source files' import statements (src/<folder>/README.md
 * says the same in words). The store stays pure, the client and the document know nothing of the
 * mock, and the mock loads none of the commands, nor the fault injection unless --deviate asks.
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const SRC = join(ROOT, 'src')
/** spec/ and contracts/ are read too: a path through the document's modules counts when following imports, and the contracts are held black-box. */
const SPEC = join(ROOT, 'spec')
const CONTRACTS = join(ROOT, 'contracts')

interface Edge {
  from: string
  to: string
  dynamic: boolean
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.(ts|mts)$/.test(name) ? [path] : []
  })
}

const STATIC = /\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm
const DYNAMIC = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g

/** Every relative import in src/, spec/ and contracts/, as repository paths (src/mock/app.ts -> src/deviate/deviations.ts). */
function edges(): Edge[] {
  return [...sourceFiles(SRC), ...sourceFiles(SPEC), ...sourceFiles(CONTRACTS)].flatMap((file) => {
    const text = readFileSync(file, 'utf8')
    const from = relative(ROOT, file)
    const to = (spec: string): string => relative(ROOT, resolve(dirname(file), spec)).replace(/\.js$/, '.ts')
    return [
      ...[...text.matchAll(STATIC)].map((m) => ({ from, to: to(m[1] ?? m[2]!), dynamic: false })),
      ...[...text.matchAll(DYNAMIC)].map((m) => ({ from, to: to(m[1]!), dynamic: true })),
    ]
  })
}

const within = (path: string, area: string): boolean => path === area || path.startsWith(`${area}/`)
const ALL = edges()
const importsOf = (area: string): Edge[] => ALL.filter((edge) => within(edge.from, area))
const show = (list: Edge[]): string[] => list.map((edge) => `${edge.from} -> ${edge.to}${edge.dynamic ? ' (dynamic)' : ''}`)

/** The commands (src/commands/): nothing below them (the mock, its operations, the layers they stand on) imports them. */
const COMMANDS = ['src/commands']

/**
 * What each folder may import, and nothing else in the repository: whole folders and the files at
 * the top of src/ (errors.ts, deps.ts, bytes.ts, package-root.ts, index.ts), never one file of
 * another folder. src/commands/cli, the commands' front, may import anything; every other folder is
 * listed (a folder inside a listed one is governed by it unless listed itself, and listed first).
 * The request path runs one way: mock -> operations -> http -> store, with document, policy, wire
 * and errors beside it.
 */
const ALLOWED: Record<string, string[]> = {
  // The store's data model (rows, fields, their types and keys): below the engine and the store's rules.
  'src/store/model': ['src/store/model', 'src/wire', 'spec'],
  // The store's engine (columns, slots, kept results): the model's vocabulary, never the store's
  // rules (save, delete, query, filter, plan, the state).
  'src/store/engine': ['src/store/engine', 'src/store/model', 'src/wire', 'spec'],
  'src/store': ['src/store', 'src/wire', 'spec'],
  'src/wire': ['src/wire', 'src/bytes.ts', 'spec'],
  // Shared policy: which hosts answer, the control plane's door, the warnings catalog, redaction.
  'src/policy': ['src/policy', 'src/wire', 'src/errors.ts', 'spec'],
  'src/document': ['src/document', 'src/wire', 'src/errors.ts', 'src/package-root.ts', 'spec'],
  'src/http': ['src/http', 'src/store', 'src/document', 'src/policy', 'src/wire', 'src/errors.ts', 'src/deps.ts', 'src/bytes.ts', 'spec'],
  'src/operations': ['src/operations', 'src/http', 'src/store', 'src/document', 'src/policy', 'src/wire', 'src/errors.ts', 'src/bytes.ts', 'spec'],
  'src/client': ['src/client', 'src/wire', 'src/document', 'src/bytes.ts', 'spec'],
  'src/fixtures': ['src/fixtures', 'src/store', 'src/document', 'src/wire', 'spec'],
  'src/usage-file': ['src/usage-file', 'src/store', 'src/wire'],
  'src/cli-base': ['src/cli-base', 'src/package-root.ts'],
  // The rules and the journal: pure (no Fastify, no request), held to the served document.
  'src/rules': ['src/rules', 'src/document', 'src/wire', 'src/errors.ts', 'spec'],
  'src/journal': ['src/journal', 'src/rules', 'src/policy', 'src/document', 'src/wire', 'src/errors.ts', 'src/bytes.ts'],
  // The durable state (--state-file): files, the snapshot's format and the change log, fed by the
  // store's records and images; the mock only wires it.
  'src/state': ['src/state', 'src/store', 'src/fixtures', 'src/wire', 'src/errors.ts', 'src/cli-base'],
  // The mock: its app and plugins, the control plane's routes (control/) and what they change (service/).
  // The fault injection (deviate/) only by the dynamic import --deviate asks for (a test below).
  'src/mock': [
    'src/mock',
    'src/state',
    'src/rules',
    'src/journal',
    'src/operations',
    'src/http',
    'src/store',
    'src/document',
    'src/policy',
    'src/wire',
    'src/fixtures',
    'src/client',
    'src/usage-file',
    'src/cli-base',
    'src/deviate',
    'src/errors.ts',
    'src/deps.ts',
    'src/bytes.ts',
    'src/package-root.ts',
    'spec',
  ],
  'src/deviate': ['src/deviate', 'src/operations', 'src/store', 'src/wire'],
  'src/commands/capture': ['src/commands/capture', 'src/client', 'src/wire', 'src/store', 'src/fixtures', 'src/bytes.ts'],
  'src/commands/compare': ['src/commands/compare', 'src/client', 'src/document', 'src/wire', 'src/bytes.ts'],
  // The proxy stands beside the commands: it reads the documents, the usage format and the shared
  // policy (hosts, warnings, redaction), and only the command line imports it.
  'src/commands/proxy': ['src/commands/proxy', 'src/commands/kit', 'src/document', 'src/policy', 'src/wire', 'src/usage-file', 'src/errors.ts', 'spec'],
  // The commands' kit: what several commands share (the ignore file, the HTML report's page and
  // escape, the sign-in -> release map); it reads a file as the usage file's door does, and imports no command.
  'src/commands/kit': ['src/commands/kit', 'src/usage-file'],
  'src/commands/usage': ['src/commands/usage', 'src/usage-file', 'src/store', 'src/client', 'src/document', 'src/wire', 'contracts', 'spec'],
  // Replays a usage on mocks of two releases in this process: the one command below the front that builds the mock.
  'src/commands/upgrade': [
    'src/commands/upgrade',
    'src/commands/usage',
    'src/commands/kit',
    'src/mock',
    'src/usage-file',
    'src/client',
    'src/document',
    'src/store',
    'src/policy',
    'src/wire',
    'src/cli-base',
    'src/deps.ts',
    'src/bytes.ts',
    'spec',
  ],
  // Black-box: the contracts run against real installations, so they know the API only as a client does.
  contracts: ['contracts', 'src/client', 'src/wire', 'src/document', 'src/bytes.ts', 'spec'],
}

/** The imports of a set of edges that the folders' rules forbid. */
function forbidden(edges: Edge[]): Edge[] {
  return edges.filter((edge) => {
    const area = Object.keys(ALLOWED).find((name) => within(edge.from, name))
    return area !== undefined && !ALLOWED[area]!.some((ok) => within(edge.to, ok))
  })
}

/** Every cycle of imports between files (Tarjan's strongly connected components of more than one file). */
function cycles(edges: Edge[]): string[][] {
  const next = new Map<string, string[]>()
  for (const edge of edges) next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to])
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (file: string): void => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(file, Math.min(low.get(file)!, low.get(to)!))
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!))
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = []
      for (let top = stack.pop(); top !== undefined; top = top === file ? undefined : stack.pop()) {
        onStack.delete(top)
        component.push(top)
      }
      if (component.length > 1) found.push(component.sort())
    }
  }
  for (const file of next.keys()) if (!index.has(file)) visit(file)
  return found
}

/** Every file reached from the files of an area by following imports (static and dynamic). */
function reachedFrom(area: string): Map<string, string[]> {
  const paths = new Map<string, string[]>()
  const queue = importsOf(area).map((edge) => [edge.from, edge.to])
  for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
    const file = path[path.length - 1]!
    if (within(file, area) || paths.has(file)) continue
    paths.set(file, path)
    for (const edge of ALL.filter((e) => e.from === file)) queue.push([...path, edge.to])
  }
  return paths
}

describe('the import direction of src/', () => {
  it('finds the imports it checks', () => {
    expect(importsOf('src/store').length).toBeGreaterThan(20)
    expect(importsOf('src/mock').length).toBeGreaterThan(50)
    expect(importsOf('src/http').length).toBeGreaterThan(10)
    expect(importsOf('contracts').length).toBeGreaterThan(20)
  })

  for (const [area, allowed] of Object.entries(ALLOWED)) {
    it(`${area} imports only ${allowed.join(', ')}`, () => {
      expect(show(forbidden(importsOf(area)))).toEqual([])
    })
  }

  it('has no import cycle between files of src/, spec/ and contracts/', () => {
    expect(cycles(ALL)).toEqual([])
  })

  it('catches each import the layout forbids when it is added back', () => {
    // The imports that once made the request path zigzag, each added to today's imports in turn.
    const added: Array<Omit<Edge, 'dynamic'>> = [
      { from: 'src/operations/index.ts', to: 'src/mock/app.ts' },
      { from: 'src/http/routes.ts', to: 'src/operations/index.ts' },
      { from: 'src/http/context.ts', to: 'src/mock/config.ts' },
      { from: 'src/store/state.ts', to: 'src/fixtures/generate.ts' },
      { from: 'src/store/engine/table.ts', to: 'src/store/filter.ts' },
      { from: 'src/store/engine/table.ts', to: 'src/store/plan.ts' },
      { from: 'src/store/engine/columns.ts', to: 'src/store/save.ts' },
      { from: 'contracts/information.ts', to: 'src/store/model/data-types.ts' },
      { from: 'src/commands/usage/verify-usage.ts', to: 'src/commands/cli/verify-report.ts' },
      { from: 'src/rules/table.ts', to: 'src/mock/plugins/rules.ts' },
      { from: 'src/journal/journal.ts', to: 'src/mock/plugins/journal.ts' },
      { from: 'src/http/steps.ts', to: 'src/rules/table.ts' },
      { from: 'src/commands/upgrade/report.ts', to: 'src/commands/cli/verify-report.ts' },
      { from: 'src/commands/usage/causes.ts', to: 'src/commands/upgrade/findings.ts' },
      { from: 'src/mock/app.ts', to: 'src/commands/kit/html-page.ts' },
      { from: 'src/commands/kit/ignore-file.ts', to: 'src/commands/proxy/findings.ts' },
    ]
    for (const edge of added) expect(show(forbidden([...ALL, { ...edge, dynamic: false }]))).toEqual([`${edge.from} -> ${edge.to}`])
    // Within a folder only the cycle check sees it: the document's reader and modes once imported each other.
    const back = ALL.find((edge) => edge.from === 'src/document/reader.ts' && edge.to === 'src/document/modes.ts')
    expect(back).toBeDefined()
    expect(cycles([...ALL, { from: 'src/document/modes.ts', to: 'src/document/reader.ts', dynamic: false }])).toEqual([
      ['src/document/modes.ts', 'src/document/reader.ts'],
    ])
  })

  it("the store's rules reach its engine only through the table (and the value types it hands out)", () => {
    const narrow = ['src/store/engine/table.ts', 'src/store/engine/lru.ts']
    const wide = importsOf('src/store').filter(
      (edge) => !within(edge.from, 'src/store/engine') && within(edge.to, 'src/store/engine') && !narrow.includes(edge.to),
    )
    expect(show(wide)).toEqual([])
    expect(importsOf('src/store/engine').length).toBeGreaterThan(5)
  })

  it('the rules and the journal know no Fastify and no request', () => {
    const fastify = [...sourceFiles(join(SRC, 'rules')), ...sourceFiles(join(SRC, 'journal'))].filter((file) =>
      /from\s*['"](fastify|@fastify\/)/.test(readFileSync(file, 'utf8')),
    )
    expect(fastify.map((file) => relative(ROOT, file))).toEqual([])
    expect(importsOf('src/rules').length).toBeGreaterThan(5)
  })

  it('the store imports neither the mock, the request path, the operations nor the commands', () => {
    const forbiddenAreas = [
      'src/mock',
      'src/http',
      'src/operations',
      'src/deviate',
      'src/fixtures',
      ...COMMANDS,
      'src/cli-base',
      'src/usage-file',
      'src/client',
      'src/index.ts',
    ]
    expect(show(importsOf('src/store').filter((edge) => forbiddenAreas.some((area) => within(edge.to, area))))).toEqual([])
  })

  for (const area of ['src/mock', 'src/operations', 'src/http']) {
    it(`${area} reaches no command nor their kit (${COMMANDS.join(', ')}), directly or through another module`, () => {
      const reached = [...reachedFrom(area).values()].filter((path) => COMMANDS.some((command) => within(path[path.length - 1]!, command)))
      expect(reached.map((path) => path.join(' -> '))).toEqual([])
    })
  }

  it('the fault injection is loaded only by the dynamic import in src/mock/app.ts (--deviate)', () => {
    const loads = ALL.filter((edge) => edge.to === 'src/deviate/deviations.ts' && !within(edge.from, 'src/deviate'))
    expect(show(loads)).toEqual(['src/mock/app.ts -> src/deviate/deviations.ts (dynamic)'])
    const operations = importsOf('src/operations').filter((edge) => within(edge.to, 'src/deviate'))
    expect(show(operations)).toEqual([])
  })
})

describe('the folders of src/', () => {
  const folders = (dir: string): string[] =>
    readdirSync(dir)
      .filter((name) => statSync(join(dir, name)).isDirectory())
      .flatMap((name) => [join(dir, name), ...folders(join(dir, name))])

  it('each opens with a README.md that says what it is for and what it may import', () => {
    const missing = folders(SRC)
      .map((dir) => relative(ROOT, dir))
      .filter((dir) => !existsSync(join(ROOT, dir, 'README.md')) || !/import/i.test(readFileSync(join(ROOT, dir, 'README.md'), 'utf8')))
    expect(missing).toEqual([])
  })

  it('keeps only the package entry and the shared modules loose in src/', () => {
    const loose = readdirSync(SRC)
      .filter((name) => statSync(join(SRC, name)).isFile() && name.endsWith('.ts'))
      .sort()
    expect(loose).toEqual(['bytes.ts', 'deps.ts', 'errors.ts', 'index.ts', 'package-root.ts'])
  })
})
