/**
 * `$regex`'s matcher (src/rules/regex.ts) on the cases where an automaton is easiest to get wrong,
 * each answer held to re2js's and written out: characters beyond the basic plane and lone
 * surrogates, case orbits, word and line edges, `.` and the newline; and each bound exactly at its
 * limit and one past it, with what the refusal says.
 */
import { RE2JS } from 're2js'
import { describe, expect, test } from 'vitest'
import { compileLinearRegex, compileLinearRegexWork, MAX_BUILD_STEPS, MAX_PROGRAM, MAX_REGEX_LENGTH } from '../../src/rules/regex.ts'

function compiled(source: string) {
  const result = compileLinearRegex(source)
  if (!result.ok) throw new Error(`${source}: ${result.message}`)
  return result.regex
}

describe('the automaton answers as RE2 does', () => {
  test.each([
    ['a lone high surrogate is one character', '^.$', '\ud83d', true],
    ['a lone low surrogate is one character', '^.$', '\ude00', true],
    ['a high surrogate before a letter is two characters', '^..$', '\ud83dx', true],
    ['... and not one', '^.$', '\ud83dx', false],
    ['a range beyond the basic plane, inside', '^[😀-😂]$', '😁', true],
    ['a range beyond the basic plane, outside', '^[😀-😂]$', '😃', false],
    ['a character beyond the basic plane after another', '😀', 'a😀', true],
    ['the same written as a code point', '^\\x{1F600}$', '😀', true],
    ['the last code point', '\\x{10FFFF}', '\u{10FFFF}', true],
    ['the last code point alone outside a range', '[^\\x{0}-\\x{10FFFE}]', '\u{10FFFF}', true],
    ['NUL', '[\\x{0}]', '\u0000', true],
    ['the first character past ASCII', '^.$', '\u0080', true],
    ['the first character past ASCII in a range', '^[\\x{80}-\\x{FF}]$', '\u0080', true],
    ['the last ASCII character', '^[\\x{7F}]$', '\u007f', true],
    ['final sigma in any case', '(?i)σ', 'ς', true],
    ['capital sigma in any case', '(?i)Σ', 'σ', true],
    ['a title-case digraph in any case', '(?i)ǅ', 'ǆ', true],
    ['the long s in any case', '(?i)ſ', 'S', true],
    ['two ranges in one class, inside', '^[a-cx-z]+$', 'abxyz', true],
    ['two ranges in one class, between', '[a-cx-z]', 'dw', false],
    ['no word boundary in the empty text', '\\B', '', true],
    ['no word boundary in the empty text, asked for one', '\\b', '', false],
    ['a word boundary before a letter', '\\b', 'a', true],
    ['a word boundary before a space', 'a\\b', 'a b', true],
    ['no word boundary inside a word', 'a\\B', 'ab', true],
    ['no word boundary before a word character', '\\Ba', 'ba', true],
    ['_ is a word character', 'x\\b', 'x_', false],
    ['a digit is a word character', '\\d\\b', '1 ', true],
    ['é is not a word character to RE2', '\\b', 'é', false],
    ['... so a word begins after it', 'é\\b', 'éa', true],
    ['é is \\W', '^\\W$', 'é', true],
    ['the end of the empty text, line mode', '(?m)$', '', true],
    ['an empty line', '(?m)^$', '\n', true],
    ['the end of a line', '(?m)a$', 'a\nb', true],
    ['the end of the text is not the end of a line', 'a$', 'a\nb', false],
    ['the start of the text only', '\\Aa', 'ba', false],
    ['the very end only', 'a\\z', 'ab', false],
    ['the start of a later line', '(?m)^a', 'b\na', true],
    ['not the start of the text', '^a', 'b\na', false],
    ['. takes a newline in s mode', '(?s).', '\n', true],
    ['. takes no newline', '.', '\n', false],
    ['a negated class takes a newline', '[^a]', '\n', true],
    ['. between two letters', 'a.b', 'a\nb', false],
    ['. between two letters in s mode', '(?s)a.b', 'a\nb', true],
    ['an empty choice matches anything', 'a|', 'zzz', true],
    ['a star matches the empty text', 'x*', '', true],
  ])('%s: /%s/ on %j is %s', (_name, source, text, expected) => {
    expect(compiled(source).test(text)).toBe(expected)
    expect(RE2JS.compile(source).test(text)).toBe(expected)
  })
})

describe('the bounds, at and past their limits', () => {
  test(`an expression of ${MAX_REGEX_LENGTH} characters is taken, one more is refused`, () => {
    const at = `[${'a'.repeat(MAX_REGEX_LENGTH - 2)}]`
    expect(at).toHaveLength(MAX_REGEX_LENGTH)
    expect(compiled(at).test('a')).toBe(true)
    expect(compileLinearRegex(`${at}b`)).toEqual({ ok: false, message: `is longer than ${MAX_REGEX_LENGTH} characters` })
  })

  test(`a program of ${MAX_PROGRAM} instructions is taken, one more is refused naming its size`, () => {
    // [a-z]{n} compiles to n + 2 instructions.
    expect(compiled(`[a-z]{${MAX_PROGRAM - 2}}`).test('q'.repeat(MAX_PROGRAM - 2))).toBe(true)
    expect(compileLinearRegex(`[a-z]{${MAX_PROGRAM - 1}}`)).toEqual({
      ok: false,
      message: `compiles to ${MAX_PROGRAM + 1} instructions, more than the ${MAX_PROGRAM} a rule's expression may have; make it shorter (large counted repetitions such as {500} weigh most)`,
    })
  })

  test("building spends from the budget given, so a pattern's expressions share one", () => {
    const budget = { steps: MAX_BUILD_STEPS }
    compileLinearRegex('abc', budget)
    const afterOne = budget.steps
    expect(afterOne).toBeLessThan(MAX_BUILD_STEPS)
    compileLinearRegex('abc', budget)
    expect(budget.steps).toBeLessThan(afterOne)
    expect(MAX_BUILD_STEPS - afterOne).toBe(afterOne - budget.steps)
  })

  test('building a large automaton gives a slice the chance to end about every 8,192 steps, and builds the same table', () => {
    const budget = { steps: MAX_BUILD_STEPS }
    const work = compileLinearRegexWork('a[ab]{8}x$', budget)
    let pauses = 0
    let step = work.next()
    for (; step.done !== true; step = work.next()) pauses++
    const spent = MAX_BUILD_STEPS - budget.steps
    expect(spent).toBeGreaterThan(4 * 8_192)
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(spent / 8_192) - 1)
    const whole = compileLinearRegex('a[ab]{8}x$')
    expect(step.value.ok && whole.ok && step.value.regex.cells === whole.regex.cells).toBe(true)
    const text = `${'ba'.repeat(20)}abbbabbbx`
    expect(step.value.ok && step.value.regex.test(text)).toBe(whole.ok && whole.regex.test(text))
  })

  test('a budget spent is a refusal that names the steps and says how to write it', () => {
    expect(compileLinearRegex('abc', { steps: 10 })).toEqual({
      ok: false,
      message: `needs an automaton of more than the ${MAX_BUILD_STEPS} steps a pattern's expressions may take to build, more than a rule's expression may (a counted or open repetition followed by many choices, such as a[ab]{20}x$, makes its size grow with every position it must remember); write it with fewer positions to remember`,
    })
  })

  test('an automaton with too many states is refused naming the bound', () => {
    const result = compileLinearRegex('a[ab]{20}x$')
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.message).toMatch(/^needs an automaton of more than (1024 states|32768 cells), more than a rule's expression may/)
  })

  test("the table's size is its cost: a larger expression weighs more", () => {
    expect(compiled('[a-z]{40}').cells).toBeGreaterThan(compiled('[a-z]{4}').cells)
    expect(compiled('a').cells).toBeGreaterThan(0)
  })
})
