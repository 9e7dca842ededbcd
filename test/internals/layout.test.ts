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

/** Every relative import in src/, as repository paths (src/mock/app.ts -> src/deviate/deviations.ts). */
function edges(): Edge[] {
  return sourceFiles(SRC).flatMap((file) => {
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

/** What each lower layer may import, and nothing else in the repository. */
const ALLOWED: Record<string, string[]> = {
  'src/store': ['src/store', 'src/fixtures', 'spec'],
  'src/wire': ['src/wire', 'spec'],
  'src/document': ['src/document', 'src/errors.ts', 'src/package-root.ts', 'spec'],
  'src/client': ['src/client', 'src/wire', 'src/document', 'src/bytes.ts', 'spec'],
  'src/fixtures': ['src/fixtures', 'src/store', 'src/document', 'spec'],
  'src/capture': ['src/capture', 'src/client', 'src/store', 'src/fixtures', 'src/bytes.ts'],
  'src/compare': ['src/compare', 'src/client', 'src/document', 'src/bytes.ts'],
  'src/deviate': ['src/deviate', 'src/operations', 'src/store'],
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
    const forbidden = ['src/mock', 'src/operations', 'src/deviate', 'src/cli', 'src/capture', 'src/compare', 'src/usage', 'src/client', 'src/index.ts']
    expect(show(importsOf('src/store').filter((edge) => forbidden.some((area) => within(edge.to, area))))).toEqual([])
  })

  it('the mock and its operations import no command: from cli/ only the flag parser and exit codes, from usage/ only the recorder', () => {
    const shared = ['src/cli/command.ts', 'src/cli/exit.ts', 'src/usage/recorder.ts', 'src/usage/file.ts']
    const commands = ['src/cli', 'src/capture', 'src/compare', 'src/usage']
    const bad = [...importsOf('src/mock'), ...importsOf('src/operations')]
      .filter((edge) => commands.some((area) => within(edge.to, area)) && !shared.includes(edge.to))
    expect(show(bad)).toEqual([])
  })

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
