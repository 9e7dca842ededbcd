/**
 * `$regex`'s linear-time matcher (src/rules/regex.ts): the automaton built whole from re2js's
 * program answers what re2js answers, over generated expressions and texts, and the expressions
 * that would cost more than their bounds are refused when compiled, naming why.
 */
import fc from 'fast-check'
import { RE2JS } from 're2js'
import { describe, expect, test } from 'vitest'
import { compileLinearRegex, MAX_PROGRAM, MAX_REGEX_LENGTH } from '../../src/rules/regex.ts'
import { runs } from '../helpers/property-runs.ts'

function compiled(source: string) {
  const result = compileLinearRegex(source)
  if (!result.ok) throw new Error(`${source}: ${result.message}`)
  return result.regex
}

/** Characters where engines tend to differ: case forms (K and the Kelvin sign, s and the long s), a newline, word edges, a non-ASCII letter, a pair of surrogates. */
const CHARACTERS = ['a', 'b', 'A', 'B', 'k', 'K', '\u212a', 's', '\u017f', 'é', 'É', '\n', ' ', '_', '1', '-', '😀']

const expression: fc.Arbitrary<string> = fc.letrec<{ re: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(
      'a',
      'b',
      'k',
      's',
      'é',
      'K',
      '\\n',
      ' ',
      '_',
      '1',
      '😀',
      '.',
      '[ab]',
      '[^a]',
      '[a-k]',
      '\\d',
      '\\w',
      '\\W',
      '\\s',
      '\\pL',
      '\\b',
      '\\B',
      '^',
      '$',
      '(?i:k)',
      '(?i:s)',
      '(?i:é)',
      '(?i:[a-c])',
    ),
    tie('re').map((inner) => `(${inner})`),
    tie('re').map((inner) => `(?:${inner})`),
  ),
  re: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('atom'),
    fc.tuple(tie('atom'), fc.constantFrom('*', '+', '?', '{2}', '{1,3}', '{0,2}', '*?', '+?')).map(([atom, op]) => `${atom}${op}`),
    fc.array(tie('atom'), { minLength: 2, maxLength: 4 }).map((atoms) => atoms.join('')),
    fc.tuple(tie('re'), tie('re')).map(([a, b]) => `${a}|${b}`),
  ),
})).re

const flags = fc.constantFrom('', '(?i)', '(?m)', '(?s)', '(?ms)', '(?i)(?s)')
const text = fc.array(fc.constantFrom(...CHARACTERS), { maxLength: 24 }).map((chars) => chars.join(''))

describe('the linear-time $regex', () => {
  test('answers what re2js answers, for any expression and text (fixed seed)', () => {
    fc.assert(
      fc.property(flags, expression, fc.array(text, { minLength: 1, maxLength: 6 }), (flag, body, texts) => {
        const source = flag + body
        let reference: RE2JS
        try {
          reference = RE2JS.compile(source)
        } catch {
          return // not an expression RE2 takes: refused alike (the next test)
        }
        const result = compileLinearRegex(source)
        if (!result.ok) return // larger than the bounds: refused when added, never run
        for (const t of texts) expect(result.regex.test(t), `/${source}/ on ${JSON.stringify(t)}`).toBe(reference.test(t))
      }),
      { numRuns: runs(400) },
    )
  })

  test('answers the same read a piece at a time, whatever the pieces, a surrogate pair cut or not (fixed seed)', () => {
    fc.assert(
      fc.property(flags, expression, text, fc.integer({ min: 1, max: 4 }), (flag, body, t, piece) => {
        const result = compileLinearRegex(flag + body)
        if (!result.ok) return
        const search = result.regex.search(t)
        let settled = search.advance(piece)
        // Each piece reads at least one character (two for a pair), so the search ends within the text's length.
        for (let reads = 0; settled === undefined && reads <= t.length; reads++) settled = search.advance(piece)
        expect(settled, `/${flag + body}/ on ${JSON.stringify(t)} in pieces of ${piece}`).toBe(result.regex.test(t))
        expect(search.advance(piece)).toBe(settled)
      }),
      { numRuns: runs(400) },
    )
  })

  test.each([
    ['a prefix', '^Needle', 'Needle in a haystack', true],
    ['a prefix elsewhere', '^Needle', 'a Needle', false],
    ['the end', 'stack$', 'haystack', true],
    ['a class and a count', '^[A-Z][a-z]+ \\d{3}$', 'Order 123', true],
    ['a word boundary', '\\bOpen\\b', "Status eq 'Open'", true],
    ['no word boundary', '\\bOpen\\b', 'Reopened', false],
    ['case-insensitive with the Kelvin sign', '(?i)k', '\u212a', true],
    ['a character beyond the basic plane', '^.$', '😀', true],
    ['lines in multi-line mode', '(?m)^b$', 'a\nb\nc', true],
    ['the empty expression', '', '', true],
  ])('%s: /%s/ on %j is %s', (_name, source, input, expected) => {
    expect(compiled(source).test(input)).toBe(expected)
    expect(RE2JS.compile(source).test(input)).toBe(expected)
  })

  test('runs the expressions that freeze a backtracking engine, to the right answer', () => {
    expect(compiled('a*a*a*a*a*a*b').test('a'.repeat(200))).toBe(false)
    expect(compiled('(a|a)*$').test(`${'a'.repeat(50_000)}b`)).toBe(true)
    expect(compiled('^(a|a)*$').test(`${'a'.repeat(50_000)}b`)).toBe(false)
    expect(compiled('(a+)+$').test(`${'a'.repeat(10_000)}!`)).toBe(false)
    expect(compiled('(a+)+!$').test(`${'a'.repeat(10_000)}!`)).toBe(true)
  })

  test.each([
    ['a back-reference', '(a)\\1', /back-references and look-around/],
    ['a look-ahead', '(?=a)b', /back-references and look-around/],
    ['a look-behind', '(?<=a)b', /not an expression the linear-time engine/],
    ['a syntax error', '(', /not an expression the linear-time engine/],
    ['an automaton too large to build', 'a[ab]{20}x$', /automaton of more than/],
    ['a program too large', '[a-z]{600}', new RegExp(`more than the ${MAX_PROGRAM}`)],
    ['an expression too long', 'a'.repeat(MAX_REGEX_LENGTH + 1), new RegExp(`longer than ${MAX_REGEX_LENGTH}`)],
  ])('refuses %s, saying why', (_name, source, message) => {
    const result = compileLinearRegex(source)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.message).toMatch(message)
  })

  test('takes the largest expressions within its bounds, and their cost is their table', () => {
    const result = compileLinearRegex('[a-z]{400}')
    expect(result.ok).toBe(true)
    if (result.ok) {
      expect(result.regex.test('q'.repeat(399))).toBe(false)
      expect(result.regex.test('q'.repeat(400))).toBe(true)
      expect(result.regex.cells).toBeGreaterThan(400)
    }
  })
})
