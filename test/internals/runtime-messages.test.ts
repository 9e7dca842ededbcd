/**
 * Messages that name what the runtime refused read the same on every Node line: the project says
 * where and why a text is not JSON in its own words (src/wire/json-syntax.ts), because V8's words
 * changed between lines (Node 22 appended "(line 3 column 1)" to them, and a message that added its
 * own line and column said it twice). `npm run test:node-lines` runs this file on every line tested.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { describeJsonSyntaxError, findJsonSyntaxError, parseJsonText } from '../../src/wire/json-syntax.ts'
import { loadFixture } from '../../src/fixtures/load.ts'
import { readUsageFile } from '../../src/usage-file/file.ts'
import { runs } from '../helpers/property-runs.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'

/** The runtime's verdict on a text, and the position its message names (when it names one). */
function runtimeVerdict(text: string): { json: boolean; position?: number } {
  try {
    JSON.parse(text)
    return { json: true }
  } catch (error) {
    const at = /at position (\d+)/.exec((error as Error).message)
    return at === null ? { json: false } : { json: false, position: Number(at[1]) }
  }
}

/** Texts near JSON: JSON values written out, then a character inserted, removed or replaced somewhere. */
const nearJson = fc
  .tuple(
    fc.jsonValue({ maxDepth: 3 }),
    fc.nat(),
    fc.nat(2),
    fc.constantFrom('', '{', '}', '[', ']', '"', ',', ':', '\\', '0', '-', '.', 'e', 'x', 't', ' ', '\n', '\u0000', '\u001f', '\ufeff'),
  )
  .map(([value, at, removed, inserted]) => {
    const text = JSON.stringify(value, null, at % 3)
    const start = at % (text.length + 1)
    return `${text.slice(0, start)}${inserted}${text.slice(Math.min(text.length, start + removed))}`
  })

/** Short texts over JSON's own characters, where most mistakes are. */
const jsonCharacters = fc
  .array(
    fc.constantFrom(
      '{',
      '}',
      '[',
      ']',
      '"',
      ':',
      ',',
      ' ',
      '\n',
      '\\',
      'u',
      'a',
      'F',
      '0',
      '1',
      '-',
      '+',
      '.',
      'e',
      't',
      'r',
      'f',
      'l',
      's',
      'n',
      '\u0001',
      '/',
    ),
    { maxLength: 14 },
  )
  .map((characters) => characters.join(''))

describe("where a text stops being JSON, in the project's words", () => {
  it('agrees with JSON.parse on every text, and on the position wherever the runtime names one', () => {
    fc.assert(
      fc.property(fc.oneof(nearJson, jsonCharacters, fc.string({ maxLength: 20 })), (text) => {
        const runtime = runtimeVerdict(text)
        const found = findJsonSyntaxError(text)
        expect(found === undefined, JSON.stringify(text)).toBe(runtime.json)
        if (runtime.position !== undefined) expect(found?.position, JSON.stringify(text)).toBe(runtime.position)
      }),
      { numRuns: runs(3000) },
    )
  })

  it.each([
    ['{\n  "query": "$top=1",\n}', "'}' where a member name in double quotes was expected (line 3, column 1)", 23],
    ['{"a":1} x', "'x' where the end of the text, after a whole JSON value was expected (line 1, column 9)", 8],
    ['', 'the text is empty where a JSON value was expected (line 1, column 1)', 0],
    [' \n', 'the text holds only white space where a JSON value was expected (line 2, column 1)', 2],
    ['{"a":', 'the text ends where a value was expected (line 1, column 6)', 5],
    ['[1,2', "the text ends where ',' or ']' was expected (line 1, column 5)", 4],
    ['foo', "'o' where the rest of false was expected (line 1, column 2)", 1],
    ['nul', 'the text ends where the rest of null was expected (line 1, column 4)', 3],
    ['{"a":"\u0001"}', 'the control character U+0001 inside a string, where JSON takes it only as an escape (\\n, \\t, \\u00XX) (line 1, column 7)', 6],
    ['"\\x"', "'x' after '\\' in a string, where JSON's escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX (line 1, column 3)", 2],
    ['"\\u12g4"', "'g' where a hexadecimal digit of a \\u escape was expected (line 1, column 6)", 5],
    ['"abc', "the text ends where the closing '\"' of a string was expected (line 1, column 5)", 4],
    ['[01]', "'1' where ',' or ']' was expected (line 1, column 3)", 2],
    ['[1.]', "']' where a digit after the number's '.' was expected (line 1, column 4)", 3],
    ['-', "the text ends where a digit of the number after '-' was expected (line 1, column 2)", 1],
    ['{"a" 1}', "'1' where ':' after the member name was expected (line 1, column 6)", 5],
    ['[1 2]', "'2' where ',' or ']' was expected (line 1, column 4)", 3],
    ['{"a":1 "b":2}', "'\"' where ',' or '}' was expected (line 1, column 8)", 7],
    ['\ufeff{}', 'U+FEFF (a byte order mark) where a value was expected (line 1, column 1)', 0],
  ])('%j: %s', (text, described, position) => {
    const parsed = parseJsonText(text)
    expect('error' in parsed && { described: describeJsonSyntaxError(parsed.error), position: parsed.error.position }).toEqual({ described, position })
  })

  it('finds a mistake after any depth of nesting in one pass (no recursion to run out of)', () => {
    const deep = `${'['.repeat(200_000)}1${']'.repeat(199_999)}}`
    expect(findJsonSyntaxError(deep)).toMatchObject({ position: 400_000, reason: "'}' where ',' or ']' was expected" })
    expect(findJsonSyntaxError(`${deep.slice(0, -1)}]`)).toBeUndefined()
  })

  it('gives the value JSON.parse gives', () => {
    expect(parseJsonText('{"__proto__":{"a":1},"b":[1,2.5e3,"\\u00e9"]}')).toEqual({ value: JSON.parse('{"__proto__":{"a":1},"b":[1,2.5e3,"\\u00e9"]}') })
  })
})

describe('files that are not JSON are named in the same words', () => {
  const dir = sharedTempDir('appdata-kit-runtime-messages-')

  it('a fixture file', () => {
    const path = join(dir, 'fixture.json')
    writeFileSync(path, '{\n  "organization": {,\n}')
    expect(() => loadFixture(path)).toThrow(`${path}: / is not valid JSON: ',' where a member name in double quotes or '}' was expected (line 2, column 20)`)
  })

  it('a usage file', () => {
    const path = join(dir, 'usage.json')
    writeFileSync(path, '{"appdataKitUsage": 1, "interactions": [}')
    expect(() => readUsageFile(path)).toThrow(`${path}: not JSON ('}' where a value or ']' was expected (line 1, column 41))`)
  })
})
