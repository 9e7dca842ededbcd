/**
 * The document as a team first uses it: fed to a code generator away from this repository. The file
 * `appdata-kit spec --out` writes into an empty folder, and the /openapi.json a started mock serves,
 * each generate types with openapi-typescript (the generator most TypeScript teams reach for first),
 * so neither may point at anything beside itself (a relative `externalValue` once did: the written
 * file only worked next to the repository's fixtures/, the served one asked the mock for a path it
 * does not answer).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, runToEnd } from '../cli/processes.ts'
import { startTestMock } from '../helpers/http.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { EXAMPLE_FILE } from '../../spec/extensions.ts'

const BIN = join(ROOT, 'bin/appdata-kit.js')
// The generator's own command line, as a team runs `npx openapi-typescript` (a devDependency of this project).
const GENERATOR = join(ROOT, 'node_modules/openapi-typescript/bin/cli.js')

/** A new empty folder outside the repository, removed after the test. */
const emptyFolder = () => tempDir('appdata-kit-codegen-')

describe('code generation from the document, away from the repository', () => {
  it.each(['openapi.yaml', 'openapi.json'])(
    'openapi-typescript generates types from `spec --out %s` in an empty folder',
    async (name) => {
      const dir = emptyFolder()
      const written = await runToEnd(process.execPath, [BIN, 'spec', '--out', name], { cwd: dir })
      expect(written.code, written.stderr).toBe(0)
      expect(readdirSync(dir)).toEqual([name])
      const generated = await runToEnd(process.execPath, [GENERATOR, name, '--output', 'schema.ts'], { cwd: dir })
      expect(generated.code, generated.stdout + generated.stderr).toBe(0)
      const schema = readFileSync(join(dir, 'schema.ts'), 'utf8')
      expect(schema).toContain('downloadAttachment: {')
      expect(schema).toContain('"application/pdf": string')
    },
    120_000,
  )

  it("openapi-typescript generates types from a started mock's /openapi.json", async () => {
    const mock = await startTestMock()
    try {
      const dir = emptyFolder()
      const generated = await runToEnd(process.execPath, [GENERATOR, `${mock.url}/openapi.json`, '--output', 'schema.ts'], { cwd: dir })
      expect(generated.code, generated.stdout + generated.stderr).toBe(0)
      expect(readFileSync(join(dir, 'schema.ts'), 'utf8')).toContain('downloadAttachment: {')
    } finally {
      await mock.close()
    }
  }, 120_000)
})

describe('the payloads the document shows', () => {
  const document = JSON.parse(readFileSync(join(ROOT, 'spec/openapi.json'), 'utf8')) as unknown

  /** Every object of the document with its JSON path. */
  function* objects(value: unknown, at = '#'): Generator<[string, Record<string, unknown>]> {
    if (value === null || typeof value !== 'object') return
    if (!Array.isArray(value)) yield [at, value as Record<string, unknown>]
    for (const [key, child] of Object.entries(value)) yield* objects(child, `${at}/${key}`)
  }

  it('references nothing outside itself', () => {
    const outside = [...objects(document)].filter(
      ([, object]) => 'externalValue' in object || (typeof object.$ref === 'string' && !object.$ref.startsWith('#')),
    )
    expect(outside.map(([at]) => at)).toEqual([])
  })

  it(`names with ${EXAMPLE_FILE} only files the package ships, and shows text payloads as exactly their bytes`, () => {
    const named = [...objects(document)].filter(([, object]) => typeof object[EXAMPLE_FILE] === 'string')
    expect(named.length).toBeGreaterThanOrEqual(4)
    for (const [at, object] of named) {
      const bytes = readFileSync(join(ROOT, 'fixtures/files', object[EXAMPLE_FILE] as string))
      if ('value' in object) expect(object.value, at).toBe(bytes.toString('utf8'))
    }
  })
})
