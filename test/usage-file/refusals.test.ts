/**
 * The usage file's door through the built command line, as a user meets it: `upgrade`,
 * `verify --usage`, `coverage` and `usage merge` read a file through the same reader, so each
 * refuses a file past a bound or of the wrong types with exit 2 (never 1, which says "this breaks
 * your client" or "the installation does not serve it"), naming the file (with the flag it came
 * by), the interaction from 1 and the JSON pointer or the limit. verify refuses the file before it
 * reaches the installation (the base URL here points at nothing). 100,000 interactions are taken
 * (test/upgrade/growth.test.ts holds upgrade and verify to time in proportion to the file).
 */
import { closeSync, existsSync, openSync, readFileSync, truncateSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { IDS } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { ROOT, runToEnd, stopStarted } from '../cli/processes.ts'
import { USAGE_LIMITS } from '../../src/usage-file/limits.ts'

const BIN = join(ROOT, 'bin/appdata-kit.js')
const dir = sharedTempDir('appdata-kit-usage-refusals-')
afterEach(stopStarted)

/** Nothing listens there: a verify that reached for the installation would say so instead. */
const NOWHERE = 'http://127.0.0.1:9'

type Command = 'upgrade' | 'verify' | 'coverage' | 'merge'

/** The command line of `command` over the usage file `file`, and how it names the file in its messages. */
function commandLine(command: Command, file: string): { args: string[]; named: string } {
  switch (command) {
    case 'upgrade':
      return { args: ['upgrade', '--usage', file, '--to', '3.0.19'], named: `--usage ${file}` }
    case 'verify':
      return {
        args: [
          'verify',
          '--base-url',
          NOWHERE,
          '--org',
          IDS.org,
          '--username',
          IDS.admin.username,
          '--password',
          IDS.admin.password,
          '--workspace-id',
          IDS.workspaceId,
          '--application-id',
          IDS.applicationId,
          '--usage',
          file,
        ],
        named: `--usage ${file}`,
      }
    case 'coverage':
      return { args: ['coverage', file], named: file }
    case 'merge':
      return { args: ['usage', 'merge', file, '--out', join(dir, 'merged.json')], named: file }
  }
}

/** Runs `command` over `file` from the built package; exit code and standard error. */
async function run(command: Command, file: string): Promise<{ code: number | null; stderr: string; named: string }> {
  const { args, named } = commandLine(command, file)
  const result = await runToEnd(process.execPath, [BIN, ...args])
  return { code: result.code, stderr: result.stderr, named }
}

/** A usage file as a test changes it: any value where a usage file has another is the point. */
type Usage = { appdataKitUsage: number; interactions: any[] }

/** A usage of one Get Items interaction and one save, recorded on 3.0.19, as --record-usage writes them. */
function usage(): Usage {
  return {
    appdataKitUsage: 1,
    interactions: [
      {
        answers: { '200': { body: { items: { fields: { Customer: 'string', Id: 'integer' }, type: 'object' }, type: 'array' }, count: 2 } },
        count: 2,
        operation: 'queryItems',
        release: '3.0.19',
        request: {
          auth: 'session-token',
          contentType: 'application/json',
          headers: ['ApplicationId', 'SessionToken', 'WorkspaceId'],
          query: { filter: 'Status eq <string>', top: 5 },
        },
      },
      {
        answers: { '200': { count: 1 } },
        count: 1,
        operation: 'saveItems',
        release: '3.0.19',
        request: {
          auth: 'session-token',
          contentType: 'application/json',
          headers: ['ApplicationId', 'SessionToken', 'WorkspaceId'],
          rows: [{ action: 'create', fields: { Customer: 'string', Id: 'temporary' }, table: null }],
        },
      },
    ],
  }
}

/** A file of the usage changed by `change`. */
function fileOf(name: string, change: (file: Usage) => unknown): string {
  const file = usage()
  change(file)
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(file))
  return path
}

describe('every command that reads a usage file', () => {
  const commands: Command[] = ['upgrade', 'verify', 'coverage', 'merge']

  it.each(commands)('%s refuses a file over the size limit by its size, before reading it (exit 2)', async (command) => {
    const path = join(dir, `huge-${command}.json`)
    writeFileSync(path, '')
    // Sparse: 8 GiB that were never written; read whole, they would not fit in a string.
    truncateSync(path, 8 * 1024 ** 3)
    const { code, stderr, named } = await run(command, path)
    expect(code, stderr).toBe(2)
    expect(stderr).toContain(`error: ${named}: 8,589,934,592 bytes or more, over the limit of 268,435,456 bytes (256 MiB) on a usage file's size`)
  })

  it.each([
    [
      'upgrade',
      'answers as a list',
      (f: Usage): unknown => (f.interactions[1].answers = [1, 2]),
      'interaction 2 (/interactions/1/answers) is a list of 2 items; it must be an object',
    ],
    ['verify', 'a negative count', (f: Usage): unknown => (f.interactions[0].count = -5), 'interaction 1 (/interactions/0/count) is -5; it must be at least 1'],
    [
      'coverage',
      'a count past the integers held exactly',
      (f: Usage): unknown => (f.interactions[0].answers['200'].count = 1e308),
      'interaction 1 (/interactions/0/answers/200/count) is 1e+308; it must be at most 9,007,199,254,740,991',
    ],
    [
      'merge',
      'a status that is no HTTP status',
      (f: Usage): unknown => (f.interactions[1].answers.abc = { count: 1 }),
      'interaction 2 (/interactions/1/answers) has the status "abc", which is no HTTP status (three digits, 100 to 599)',
    ],
    [
      'upgrade',
      'a type no recorder writes',
      (f: Usage): unknown => (f.interactions[0].answers['200'].body.items.fields.Id = 'int'),
      'interaction 1 (/interactions/0/answers/200/body/items/fields/Id) is "int", which is no type a recorder writes',
    ],
    [
      'verify',
      'an operation of no release',
      (f: Usage): unknown => (f.interactions[0].operation = 'queryAll'),
      'interaction 1 (/interactions/0/operation) is "queryAll"; it must be one of',
    ],
    [
      'coverage',
      'a member no usage file has',
      (f: Usage): unknown => (f.interactions[0].request.querry = {}),
      'interaction 1 (/interactions/0/request) has a member "querry", which a usage file does not have there',
    ],
    [
      'merge',
      'rows that are no list',
      (f: Usage): unknown => (f.interactions[1].request.rows = 'all'),
      'interaction 2 (/interactions/1/request/rows) is "all"; it must be a list',
    ],
  ] as const)('%s refuses %s (exit 2), naming the file, the interaction and the pointer', async (command, name, change, message) => {
    const { code, stderr, named } = await run(command, fileOf(`${name.replace(/\W+/g, '-')}.json`, change))
    expect(code, stderr).toBe(2)
    expect(stderr).toContain(`error: ${named}: ${message}`)
  })

  it.each(commands.flatMap((command) => ['9.9.9', '3.9999999999999999'].map((release) => [command, release] as const)))(
    '%s refuses the unknown release %s (exit 2), naming the file, the interaction and the releases known',
    async (command, release) => {
      const { code, stderr, named } = await run(
        command,
        fileOf(`release-${command}-${release}.json`, (f) => (f.interactions[1].release = release)),
      )
      expect(code, stderr).toBe(2)
      expect(stderr).toContain(
        `error: ${named}: interaction 2 (/interactions/1/release) names the release "${release}", which appdata-kit does not know: it knows the releases 2.0 to 3.x, such as 2.9, 3.0.18 or 3.0.19 (latest)`,
      )
      expect(stderr).not.toContain('--product-version')
    },
  )
})

describe('a usage file given as a pipe', () => {
  it('is read as a file is (coverage <(cat usage.json))', async () => {
    const path = fileOf('piped.json', () => undefined)
    const result = await runToEnd('sh', ['-c', `cat '${path}' | '${process.execPath}' '${BIN}' coverage /dev/stdin --format json`])
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout).used).toEqual(['queryItems', 'saveItems'])
  })
})

describe('the bounds, each through a command', () => {
  it.each([
    [
      'upgrade',
      'a member name over the limit',
      (f: Usage): unknown => (f.interactions[1].request.rows[0].fields['F'.repeat(USAGE_LIMITS.nameLength + 1)] = 'string'),
      'interaction 2 (/interactions/1/request/rows/0/fields) has a member name of 1,025 characters ("FFFF',
    ],
    [
      'verify',
      'a list over the limit',
      (f: Usage): unknown => (f.interactions[0].request.query.other = Array.from({ length: USAGE_LIMITS.listItems + 1 }, (_, i) => `o${i}`)),
      'interaction 1 (/interactions/0/request/query/other) lists 1,001 items, over the limit of 1,000 items in a list',
    ],
    [
      'coverage',
      'an object over the limit of members',
      (f: Usage): unknown =>
        (f.interactions[0].answers['200'].body.items.fields = Object.fromEntries(
          Array.from({ length: USAGE_LIMITS.members + 1 }, (_, i) => [`F${i}`, 'string']),
        )),
      'interaction 1 (/interactions/0/answers/200/body/items/fields) has 2,049 members, over the limit of 2,048 members in an object',
    ],
    [
      'merge',
      'a text over the limit',
      (f: Usage): unknown => (f.interactions[0].request.query.filter = 'x'.repeat(USAGE_LIMITS.textLength + 1)),
      'interaction 1 (/interactions/0/request/query/filter) is a text of 65,537 characters, over the limit of 65,536 characters on a text',
    ],
  ] as const)('%s refuses %s (exit 2), naming the limit', async (command, name, change, message) => {
    const { code, stderr, named } = await run(command, fileOf(`${name.replace(/\W+/g, '-')}.json`, change))
    expect(code, stderr).toBe(2)
    expect(stderr).toContain(`error: ${named}: ${message}`)
  })

  it('upgrade refuses a shape nested 100,000 deep at the limit on nesting (exit 2)', async () => {
    const path = fileOf('deep.json', (f) => (f.interactions[0].answers['200'].body = 'DEEP'))
    writeFileSync(path, readFileSync(path, 'utf8').replace('"DEEP"', `${'{"type":"array","items":'.repeat(100_000)}"string"${'}'.repeat(100_000)}`))
    const { code, stderr } = await run('upgrade', path)
    expect(code, stderr).toBe(2)
    expect(stderr).toContain(
      `interaction 1 (/interactions/0/answers/200/body${'/items'.repeat(16)}) holds a shape whose members nest deeper than 16 levels, the limit on a shape's nesting`,
    )
  })

  it('coverage refuses more interactions than the limit (exit 2), naming the count and the limit', async () => {
    const path = join(dir, 'too-many.json')
    const one = JSON.stringify(usage().interactions[0])
    writeFileSync(path, `{"appdataKitUsage":1,"interactions":[${Array.from({ length: USAGE_LIMITS.interactions + 1 }, () => one).join(',')}]}`)
    const { code, stderr } = await run('coverage', path)
    expect(code, stderr).toBe(2)
    expect(stderr).toContain(`error: ${path}: /interactions holds 200,001 interactions, over the limit of 200,000 interactions in a usage file`)
  })

  it('usage merge writes no file whose counts added pass the integers held exactly (exit 2, naming --out)', async () => {
    const half = fileOf('half.json', (f) => (f.interactions[1].count = Number.MAX_SAFE_INTEGER - 1))
    const out = join(dir, 'over.json')
    const result = await runToEnd(process.execPath, [BIN, 'usage', 'merge', half, half, '--out', out])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(
      `error: --out ${out} (not written): interaction 2 (/interactions/1/count) is 18014398509481980; it must be at most 9,007,199,254,740,991`,
    )
    expect(existsSync(out)).toBe(false)
  })
})

describe('a 150 MB file holding one long string', () => {
  const path = join(dir, 'long-string.json')
  beforeAll(() => {
    // Written in pieces: the test holds no 150 MB string of its own.
    const fd = openSync(path, 'w')
    const chunk = 'x'.repeat(1024 * 1024)
    writeSync(
      fd,
      '{"appdataKitUsage":1,"interactions":[{"answers":{"200":{"count":1}},"count":1,"operation":"queryItems","release":"3.0.19","request":{"auth":"session-token","headers":[],"query":{"filter":"',
    )
    for (let i = 0; i < 150; i++) writeSync(fd, chunk)
    writeSync(fd, '"}}}]}')
    closeSync(fd)
  })

  it.each(['upgrade', 'verify'] as const)('%s refuses it at the limit on a text (exit 2, never 1)', async (command) => {
    const { code, stderr, named } = await run(command, path)
    expect(code, stderr).toBe(2)
    expect(stderr).toContain(
      `error: ${named}: interaction 1 (/interactions/0/request/query/filter) is a text of 157,286,400 characters, over the limit of 65,536 characters on a text`,
    )
  })
})

describe('100,000 interactions', () => {
  const path = join(dir, 'large.json')
  beforeAll(() => {
    // A large client's usage: 100,000 shapes of Get Items (page sizes, orders and filters), as the recorder writes them, indented.
    const orders = ['Customer asc', 'Amount desc', 'Id asc', 'Status asc, Id desc']
    const filters = [undefined, 'Status eq <string>', 'Amount gt <number> and Status ne <string>', 'MasterId eq <integer>']
    const base = usage().interactions[0]
    const interactions = Array.from({ length: 100_000 }, (_, i) => ({
      ...base,
      request: {
        ...base.request,
        query: {
          orderBy: orders[i % 4],
          top: 1 + Math.floor(i / 16),
          ...(filters[Math.floor(i / 4) % 4] === undefined ? {} : { filter: filters[Math.floor(i / 4) % 4] }),
        },
      },
    }))
    writeFileSync(path, `${JSON.stringify({ appdataKitUsage: 1, interactions }, null, 2)}\n`)
  })

  it('are taken (coverage counts every one)', async () => {
    const coverage = await runToEnd(process.execPath, [BIN, 'coverage', path, '--format', 'json'])
    expect(coverage.code, coverage.stderr).toBe(0)
    expect(JSON.parse(coverage.stdout).operations.find((o: { operation: string }) => o.operation === 'queryItems').count).toBe(200_000)
  }, 60_000)
})
