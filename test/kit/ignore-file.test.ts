/**
 * The one ignore file of `proxy --ignore` and `upgrade --ignore` (src/commands/kit/ignore-file.ts, and
 * ignore-match.ts for the matching): one
 * format (YAML or JSON, a list or `{ ignore: [...] }`) checked against the published schema,
 * entries counted from 1 in every message with the member at fault named, `*` for any in each
 * member that names something, the reason kept, the file's size and entries bounded, and matching
 * tolerant of older pointers and of findings that touch several operations.
 */
import { readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { IgnoreFileError, readIgnoreFile } from '../../src/commands/kit/ignore-file.ts'
import { acceptingEntry, samePointer, type IgnoreEntry } from '../../src/commands/kit/ignore-match.ts'
import { IGNORE_LIMITS } from '../../src/commands/kit/ignore-format.ts'
import { IGNORE_SCHEMA_FILE, IGNORE_VALIDATOR_FILE, ignoreSchemaText, ignoreValidatorSource } from '../../spec/ignore-schema.ts'
import { ROOT } from '../cli/processes.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'

const dir = sharedTempDir('appdata-kit-kit-ignore-')
let files = 0

/** A file holding `text`, under a name of its own. */
function file(text: string, extension = 'yaml'): string {
  const path = join(dir, `ignore-${++files}.${extension}`)
  writeFileSync(path, text)
  return path
}

/** The message readIgnoreFile refuses a file with (and that it is an IgnoreFileError naming the file). */
function refusal(path: string, command: 'proxy' | 'upgrade'): string {
  try {
    readIgnoreFile(path, command)
  } catch (error) {
    expect(error).toBeInstanceOf(IgnoreFileError)
    expect((error as Error).message.startsWith(`${path}: `)).toBe(true)
    return (error as Error).message.slice(path.length + 2)
  }
  throw new Error(`${path} was taken`)
}

describe('the ignore schema', () => {
  it(`${IGNORE_SCHEMA_FILE} and ${IGNORE_VALIDATOR_FILE} are what npm run spec writes now`, () => {
    expect(readFileSync(join(ROOT, IGNORE_SCHEMA_FILE), 'utf8')).toBe(ignoreSchemaText())
    expect(readFileSync(join(ROOT, IGNORE_VALIDATOR_FILE), 'utf8')).toBe(ignoreValidatorSource())
  })

  it('says the bounds and the members of each command', () => {
    const schema = JSON.parse(ignoreSchemaText())
    expect(schema.$defs.proxyFile.maxItems).toBe(IGNORE_LIMITS.entries)
    expect(schema.$defs.upgradeFile.properties.ignore.maxItems).toBe(IGNORE_LIMITS.entries)
    expect(Object.keys(schema.$defs.proxyEntry.properties)).toEqual(['side', 'operationId', 'pointer', 'reason'])
    expect(Object.keys(schema.$defs.upgradeEntry.properties)).toEqual(['kind', 'operationId', 'reason'])
    expect(schema.$defs.proxyEntry.properties.side.enum).toEqual(['request', 'answer', '*'])
    expect(schema.$defs.upgradeEntry.properties.kind.enum).toContain('*')
    expect(schema.$defs.proxyEntry.properties.reason.maxLength).toBe(IGNORE_LIMITS.textLength)
    expect(schema.description).toContain(`at most ${IGNORE_LIMITS.fileBytes} bytes`)
  })
})

describe('reading an ignore file', () => {
  it('takes a YAML list and a JSON { ignore } alike, reasons kept', () => {
    const yaml = file(
      '# accepted\n- side: answer\n  operationId: "*"\n  pointer: /body/*/Amount\n  reason: staging sends text\n- side: "*"\n  operationId: saveItems\n',
    )
    const json = file(
      JSON.stringify({
        ignore: [
          { side: 'answer', operationId: '*', pointer: '/body/*/Amount', reason: 'staging sends text' },
          { side: '*', operationId: 'saveItems' },
        ],
      }),
      'json',
    )
    const entries = readIgnoreFile(yaml, 'proxy')
    expect(entries).toEqual([
      { side: 'answer', operationId: '*', pointer: '/body/*/Amount', reason: 'staging sends text' },
      { side: '*', operationId: 'saveItems' },
    ])
    expect(readIgnoreFile(json, 'proxy')).toEqual(entries)
    expect(readIgnoreFile(file('- kind: "*"\n  operationId: deleteItems\n  reason: later\n'), 'upgrade')).toEqual([
      { kind: '*', operationId: 'deleteItems', reason: 'later' },
    ])
  })

  it("still takes the proxy's older JSON list as it was written", () => {
    const older = file(
      JSON.stringify([
        { side: 'answer', operationId: 'queryItems', pointer: '/body/*/Amount', reason: 'staging sends Amount as text until release 3.0.20' },
        { side: 'request', operationId: 'saveItems' },
      ]),
      'json',
    )
    expect(readIgnoreFile(older, 'proxy')).toHaveLength(2)
  })

  it('takes an empty file as accepting nothing', () => {
    expect(readIgnoreFile(file(''), 'upgrade')).toEqual([])
    expect(readIgnoreFile(file('# nothing accepted yet\n'), 'proxy')).toEqual([])
  })

  it.each([
    ['proxy', '- side: answer\n- side: sideways\n', 'entry 2, member side: must be one of request, answer, *; got "sideways"'],
    [
      'proxy',
      JSON.stringify({ ignore: [{ side: 'answer' }, { pointer: '/status' }, { operationId: 3 }] }),
      'entry 3, member operationId: must be a text; got 3',
    ],
    [
      'proxy',
      JSON.stringify([{ side: 'answer', operationId: 'queryItems', kind: 'path-moved' }]),
      'entry 1, member kind: not a member of an entry of proxy --ignore, which names side, operationId, pointer (and a reason)',
    ],
    ['proxy', '- reason: nothing named\n', 'entry 1 names nothing to accept (side, operationId, pointer)'],
    ['proxy', '- side: answer\n- just a text\n', 'entry 2 is not an object (side, operationId, pointer, and a reason); got "just a text"'],
    ['proxy', '- pointer: ""\n', 'entry 1, member pointer: must not be empty'],
    ['upgrade', '- kind: path-moved\n  operationId: signIn\n- kind: moved\n  operationId: signIn\n', 'entry 2, member kind: must be one of path-moved, '],
    ['upgrade', '- kind: path-moved\n  operationId: signIn\n  reason: 3\n', 'entry 1, member reason: must be a text; got 3'],
    ['upgrade', '- kind: path-moved\n  side: answer\n', 'entry 1, member side: not a member of an entry of upgrade --ignore'],
    ['upgrade', `- operationId: signIn\n  reason: ${'r'.repeat(IGNORE_LIMITS.textLength + 1)}\n`, `entry 1, member reason: longer than 1,024 characters`],
    ['upgrade', 'kind: path-moved\n', 'expected a list of accepted findings'],
    ['upgrade', 'ignore: [{ kind: path-moved }]\nother: 1\n', '"other" is no member of it'],
    ['upgrade', '- [unclosed\n', 'neither YAML nor JSON'],
  ] as const)('refuses an ignore file of %s, %j, naming the entry from 1 and the member', (command, text, message) => {
    expect(refusal(file(text), command)).toContain(message)
  })

  it(`refuses more than ${IGNORE_LIMITS.entries} entries`, () => {
    const many = Array.from({ length: IGNORE_LIMITS.entries + 1 }, (_, i) => ({ operationId: `op${i}` }))
    expect(readIgnoreFile(file(JSON.stringify(many.slice(1)), 'json'), 'upgrade')).toHaveLength(IGNORE_LIMITS.entries)
    expect(refusal(file(JSON.stringify(many), 'json'), 'upgrade')).toBe('1,001 entries, more than 1,000')
  })

  it('refuses a file over the size limit before reading it whole (a 3 GiB file, more than a text can hold, is refused by its size)', () => {
    const big = file('')
    // Sparse: nothing is written, and reading it whole would fail on its size instead.
    truncateSync(big, 3 * 1024 ** 3)
    expect(refusal(big, 'proxy')).toBe("3,221,225,472 bytes or more, over the limit of 1,048,576 bytes (1 MiB) on an ignore file's size")
    const atLimit = file(`# ${'x'.repeat(IGNORE_LIMITS.fileBytes - 3)}\n`)
    expect(readIgnoreFile(atLimit, 'proxy')).toEqual([])
    expect(refusal(file(`# ${'x'.repeat(IGNORE_LIMITS.fileBytes - 2)}\n`), 'proxy')).toContain('over the limit of 1,048,576 bytes')
  })

  it('takes the files docs/proxy.md and docs/upgrade.md show', () => {
    for (const [page, name, command] of [
      ['docs/proxy.md', '.appdata-kit-ignore.yaml', 'proxy'],
      ['docs/upgrade.md', 'upgrade-ignore.yaml', 'upgrade'],
    ] as const) {
      const shown = new RegExp(`\`\`\`yaml\n# ${name.replaceAll('.', '\\.')}\n([^]*?)\`\`\``).exec(readFileSync(join(ROOT, page), 'utf8'))?.[1]
      expect(shown, page).toBeDefined()
      const entries = readIgnoreFile(file(shown!), command)
      expect(entries.length, page).toBeGreaterThan(1)
      expect(
        entries.every((entry) => entry.reason !== undefined),
        page,
      ).toBe(true)
    }
  })

  it('names a file it cannot read', () => {
    expect(refusal(join(dir, 'missing.yaml'), 'upgrade')).toBe('cannot be read (ENOENT)')
  })
})

describe('matching findings', () => {
  const entries: IgnoreEntry[] = [
    { side: 'request', operationId: 'queryItems', pointer: '/headers/applicationid', reason: 'lower case, as older reports wrote it' },
    { side: '*', operationId: 'saveItems', reason: 'any side' },
    { pointer: '*', operationId: 'deleteItems' },
  ]
  const upgradeEntries: IgnoreEntry[] = [
    { kind: 'answer-renamed', operationId: 'saveItems', reason: 'one of several' },
    { kind: '*', operationId: 'signInLegacy', reason: 'any kind' },
  ]

  it("takes a header's name in any letter case, and nothing else loosely", () => {
    expect(samePointer('/headers/applicationid', '/headers/ApplicationId')).toBe(true)
    expect(samePointer('/headers/content-type/x', '/headers/Content-Type/x')).toBe(true)
    expect(samePointer('/body/amount', '/body/Amount')).toBe(false)
    expect(samePointer('/headers/ApplicationId', '/headers/ApplicationIds')).toBe(false)
    expect(acceptingEntry(entries, { side: 'request', operationIds: ['queryItems'], pointer: '/headers/ApplicationId' })?.reason).toBe(
      'lower case, as older reports wrote it',
    )
    expect(acceptingEntry(entries, { side: 'answer', operationIds: ['queryItems'], pointer: '/headers/ApplicationId' })).toBeUndefined()
  })

  it('takes "*" and a left-out member as any value, and one of several operations', () => {
    expect(acceptingEntry(entries, { side: 'answer', operationIds: ['saveItems'], pointer: '/status' })?.reason).toBe('any side')
    expect(acceptingEntry(entries, { side: 'answer', operationIds: ['deleteItems'], pointer: '/body/Rows' })).toBe(entries[2])
    expect(acceptingEntry(upgradeEntries, { kind: 'answer-renamed', operationIds: ['deleteItems', 'saveItems'] })?.reason).toBe('one of several')
    expect(acceptingEntry(upgradeEntries, { kind: 'answer-renamed', operationIds: ['deleteItems'] })).toBeUndefined()
    expect(acceptingEntry(upgradeEntries, { kind: 'path-moved', operationIds: ['signInLegacy'] })?.reason).toBe('any kind')
    expect(acceptingEntry(upgradeEntries, { kind: 'answer-removed', operationIds: ['signIn'] })).toBeUndefined()
    // A finding no operation takes is accepted by "*", not by a name.
    expect(acceptingEntry([{ operationId: '*' }], { side: 'request', operationIds: [], pointer: '' })).toBeDefined()
    expect(acceptingEntry([{ operationId: 'queryItems' }], { side: 'request', operationIds: [], pointer: '' })).toBeUndefined()
  })
})
