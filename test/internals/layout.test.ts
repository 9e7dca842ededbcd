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
/** spec/ is read too, so that a path through the document's modules counts when following imports. */
const SPEC = join(ROOT, 'spec')

interface Edge { from: string; to: string; dynamic: boolean }

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.(ts|mts)$/.test(name) ? [path] : []
  })
}

const STATIC = /\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]/gm
const DYNAMIC = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g

/** Every relative import in src/ and spec/, as repository paths (src/mock/app.ts -> src/deviate/deviations.ts). */
function edges(): Edge[] {
  return [...sourceFiles(SRC), ...sourceFiles(SPEC)].flatMap((file) => {
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

/** The commands: nothing below them (the mock, its operations, the layers they stand on) imports them. */
const COMMANDS = ['src/cli', 'src/usage', 'src/capture', 'src/compare']

/**
 * What each folder may import, and nothing else in the repository. src/cli, the commands' front,
 * may import anything; every other folder is listed.
 */
const ALLOWED: Record<string, string[]> = {
  'src/store': ['src/store', 'src/fixtures', 'spec'],
  'src/wire': ['src/wire', 'spec'],
  'src/document': ['src/document', 'src/errors.ts', 'src/package-root.ts', 'spec'],
  'src/client': ['src/client', 'src/wire', 'src/document', 'src/bytes.ts', 'spec'],
  'src/fixtures': ['src/fixtures', 'src/store', 'src/document', 'spec'],
  'src/usage-file': ['src/usage-file', 'src/store'],
  'src/cli-base': ['src/cli-base', 'src/package-root.ts'],
  'src/mock': [
    'src/mock', 'src/operations', 'src/store', 'src/document', 'src/wire', 'src/fixtures', 'src/client',
    'src/usage-file', 'src/cli-base', 'src/deviate/deviation-names.ts', 'src/deviate/deviations.ts',
    'src/errors.ts', 'src/deps.ts', 'src/bytes.ts', 'src/package-root.ts', 'spec',
  ],
  // The operations answer inside the mock's request path: its credentials, warnings and route
  // helpers, never its server, app or control plane.
  'src/operations': [
    'src/operations', 'src/store', 'src/document', 'src/wire', 'src/mock/auth', 'src/mock/plugins/auth.ts',
    'src/mock/plugins/warnings.ts', 'src/mock/ready-answer.ts', 'src/mock/routes.ts', 'src/errors.ts', 'src/bytes.ts', 'spec',
  ],
  'src/deviate': ['src/deviate', 'src/operations', 'src/store'],
  'src/capture': ['src/capture', 'src/client', 'src/store', 'src/fixtures', 'src/bytes.ts'],
  'src/compare': ['src/compare', 'src/client', 'src/document', 'src/bytes.ts'],
  'src/usage': ['src/usage', 'src/usage-file', 'src/store', 'src/client', 'src/document', 'src/wire', 'src/cli/verify-report.ts', 'contracts', 'spec'],
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
  })

  for (const [area, allowed] of Object.entries(ALLOWED)) {
    it(`${area} imports only ${allowed.join(', ')}`, () => {
      expect(show(importsOf(area).filter((edge) => !allowed.some((ok) => within(edge.to, ok))))).toEqual([])
    })
  }

  it('the store imports neither the mock, the operations nor the commands', () => {
    const forbidden = ['src/mock', 'src/operations', 'src/deviate', ...COMMANDS, 'src/cli-base', 'src/usage-file', 'src/client', 'src/index.ts']
    expect(show(importsOf('src/store').filter((edge) => forbidden.some((area) => within(edge.to, area))))).toEqual([])
  })

  for (const area of ['src/mock', 'src/operations']) {
    it(`${area} reaches no command (${COMMANDS.join(', ')}), directly or through another module`, () => {
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
  const folders = (dir: string): string[] => readdirSync(dir)
    .filter((name) => statSync(join(dir, name)).isDirectory())
    .flatMap((name) => [join(dir, name), ...folders(join(dir, name))])

  it('each opens with a README.md that says what it is for and what it may import', () => {
    const missing = folders(SRC).map((dir) => relative(ROOT, dir))
      .filter((dir) => !existsSync(join(ROOT, dir, 'README.md')) || !/import/i.test(readFileSync(join(ROOT, dir, 'README.md'), 'utf8')))
    expect(missing).toEqual([])
  })

  it('keeps only the package entry and the shared modules loose in src/', () => {
    const loose = readdirSync(SRC).filter((name) => statSync(join(SRC, name)).isFile() && name.endsWith('.ts')).sort()
    expect(loose).toEqual(['bytes.ts', 'deps.ts', 'errors.ts', 'index.ts', 'package-root.ts'])
  })
})
