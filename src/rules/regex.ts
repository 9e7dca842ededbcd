import { RE2JS } from 're2js'
import { runAtOnce, type Work } from './work.ts'

/**
 * `$regex` of the pattern language, run in time linear in the text with a small, fixed cost per
 * character, whatever the pattern (RE2's promise, kept at the door as RE2 keeps it):
 *
 * - re2js (a pure-JavaScript port of RE2, no native build) parses the expression and compiles it
 *   to RE2's instruction program. RE2's syntax has no back-references and no look-around, which
 *   need backtracking; re2js refuses them with their name when the rule is added.
 * - From that program this module builds the whole automaton (a DFA: one state per set of places
 *   the expression can be in) when the pattern is compiled, and refuses an expression whose
 *   automaton is larger than MAX_STATES states or MAX_CELLS table cells. Matching is then one table
 *   step per character and never builds anything: no cache to fill, no slower engine to fall back
 *   to. (re2js's own matcher builds its automaton lazily and falls back to a simulation costing
 *   the program's size per character when its cache fills: `a[ab]{20}x$` took 0.6 s on a 16 KB
 *   text. That is linear, but not cheap enough for a request path other clients wait behind.)
 *
 * `test` answers what re2js's `test` answers (an unanchored search: is there a match anywhere);
 * test/rules/regex.test.ts holds the two together over generated expressions and texts.
 */

/** Longest expression taken, in characters. */
export const MAX_REGEX_LENGTH = 1_000
/** Largest RE2 program compiled from an expression, in instructions (bounds the work of building its automaton). */
export const MAX_PROGRAM = 500
/** Most states an expression's automaton may have. */
export const MAX_STATES = 1_024
/** Most cells (states × character classes) an expression's table may have: 128 KB each. */
export const MAX_CELLS = 32_768
/**
 * Most work building one pattern's automata may take, in instructions visited and threads handled
 * and characters classed (about 9 per microsecond here: some 0.1 s at most, when a rule is added): what a state's threads
 * and steps cost to find grows with the program and the states, so adding a rule is bounded as its
 * matching is. A pattern's expressions share it (`compileLinearRegex`'s `budget`).
 */
export const MAX_BUILD_STEPS = 1_000_000

/** What building automata may still spend; one per pattern, shared by its expressions. */
export interface BuildBudget {
  steps: number
}

/** A compiled `$regex`: `test(text)` costs one table step per character. */
export interface LinearRegex {
  readonly source: string
  /** Cells of its table, for the bounds of a whole pattern. */
  readonly cells: number
  test(text: string): boolean
  /** The same search, read a piece of the text at a time (`RegexSearch`), for a caller that pauses between pieces. */
  search(text: string): RegexSearch
}

/** A search through one text, resumable: the table's state and the place it has read to. */
export interface RegexSearch {
  /** Characters read so far. */
  readonly position: number
  /** Reads about `chars` more characters: true or false once settled (a match, or the text's end without one), undefined while text remains. */
  advance(chars: number): boolean | undefined
}

// RE2's instruction codes and empty-width flags (re2js's Inst and Utils; its types say `any`).
const ALT = 1
const ALT_MATCH = 2
const CAPTURE = 3
const EMPTY_WIDTH = 4
const FAIL = 5
const MATCH = 6
const NOP = 7
const RUNE = 8
const RUNE1 = 9
const RUNE_ANY = 10
const RUNE_ANY_NOT_NL = 11
const FOLD_CASE = 1
const BEGIN_LINE = 1
const END_LINE = 2
const BEGIN_TEXT = 4
const END_TEXT = 8
const WORD_BOUNDARY = 16
const NO_WORD_BOUNDARY = 32

/** What this module reads of one of re2js's instructions. */
interface Instruction {
  op: number
  out: number
  arg: number
  runes: Int32Array | number[]
  matchRune(rune: number): boolean
}

interface Program {
  start: number
  numLb?: number
  numInst(): number
  getInst(pc: number): Instruction
}

/** The table's answer for "a match was found": the search stops. */
const ACCEPT = -1
const NEWLINE = 10
const MAX_RUNE = 0x10ffff

const isWordRune = (rune: number): boolean => (rune >= 48 && rune <= 57) || (rune >= 65 && rune <= 90) || (rune >= 97 && rune <= 122) || rune === 95

/**
 * Compiles an expression (RE2 syntax) into a linear-time matcher, or says why it cannot: a syntax
 * RE2 does not have (back-references, look-around), or an expression too large for the bounds.
 */
export function compileLinearRegex(source: string, budget: BuildBudget = { steps: MAX_BUILD_STEPS }): CompiledRegex {
  return runAtOnce(compileLinearRegexWork(source, budget))
}

/** What compiling an expression gives: the matcher, or why there is none. */
export type CompiledRegex = { ok: true; regex: LinearRegex } | { ok: false; message: string }

/**
 * Steps of building an automaton between two chances for a slice to end (about a millisecond): a
 * pattern's expressions may take MAX_BUILD_STEPS in all, some 0.1 s.
 */
const BUILD_PAUSE = 8_192

/** `compileLinearRegex` as work that may pause (work.ts) while the automaton is built. */
export function* compileLinearRegexWork(source: string, budget: BuildBudget = { steps: MAX_BUILD_STEPS }): Work<CompiledRegex> {
  if (source.length > MAX_REGEX_LENGTH) return { ok: false, message: `is longer than ${MAX_REGEX_LENGTH} characters` }
  let program: Program
  try {
    program = RE2JS.compile(source).re2().prog as Program
  } catch (error) {
    return {
      ok: false,
      message: `is not an expression the linear-time engine (RE2 syntax) can run: ${(error as Error).message}; back-references and look-around need backtracking and are not taken`,
    }
  }
  if ((program.numLb ?? 0) > 0) return { ok: false, message: 'uses look-behind, which the linear-time engine does not take' }
  if (program.numInst() > MAX_PROGRAM)
    return {
      ok: false,
      message: `compiles to ${program.numInst()} instructions, more than the ${MAX_PROGRAM} a rule's expression may have; make it shorter (large counted repetitions such as {500} weigh most)`,
    }
  const built = yield* buildAutomaton(program, budget)
  if (!built.ok) return built
  const { table, width, start, classOf } = built
  const end = width - 1
  return {
    ok: true,
    regex: {
      source,
      cells: table.length,
      // The hot path (every rule against every request): its own loop, so a text allocates nothing.
      test(text) {
        let state = start
        const length = text.length
        for (let i = 0; i < length; i++) {
          let rune = text.charCodeAt(i)
          // A surrogate pair is one character, as RE2 reads text.
          if (rune >= 0xd800 && rune <= 0xdbff && i + 1 < length) {
            const low = text.charCodeAt(i + 1)
            if (low >= 0xdc00 && low <= 0xdfff) {
              rune = 0x10000 + ((rune - 0xd800) << 10) + (low - 0xdc00)
              i++
            }
          }
          state = table[state * width + classOf(rune)] as number
          if (state === ACCEPT) return true
        }
        return table[state * width + end] === ACCEPT
      },
      search,
    },
  }

  function search(subject: string): RegexSearch {
    let state = start
    let position = 0
    return {
      get position() {
        return position
      },
      advance(chars) {
        if (state === ACCEPT) return true
        // Locals in the loop, written back once: the closure's variables read and written per character cost a third more.
        const text = subject
        const length = text.length
        const stop = Math.min(length, position + chars)
        let at = state
        let i = position
        for (; i < stop; i++) {
          let rune = text.charCodeAt(i)
          // A surrogate pair is one character, as RE2 reads text (read whole, even across a piece's end).
          if (rune >= 0xd800 && rune <= 0xdbff && i + 1 < length) {
            const low = text.charCodeAt(i + 1)
            if (low >= 0xdc00 && low <= 0xdfff) {
              rune = 0x10000 + ((rune - 0xd800) << 10) + (low - 0xdc00)
              i++
            }
          }
          at = table[at * width + classOf(rune)] as number
          if (at === ACCEPT) {
            state = ACCEPT
            position = i + 1
            return true
          }
        }
        state = at
        position = i
        if (i < length) return undefined
        return table[at * width + end] === ACCEPT
      },
    }
  }
}

/**
 * The automaton of a program, built whole. A state is the set of instructions waiting for the next
 * character (after every step that needs no context), with what the last character was, as far as
 * the program's empty-width assertions (^ $ \b \B) ask. On a character (or the end of the text), the
 * assertions that hold between the last character and it are followed, then the instructions that
 * take it; a new thread starts at every position (an unanchored search). A state that reaches
 * MATCH accepts at once: `test` only asks whether there is a match.
 */
function* buildAutomaton(
  program: Program,
  budget: BuildBudget,
): Work<{ ok: true; table: Int32Array; width: number; start: number; classOf: (rune: number) => number } | { ok: false; message: string }> {
  const count = program.numInst()
  const inst = (pc: number): Instruction => program.getInst(pc)
  let usesLines = false
  let usesWords = false
  for (let pc = 0; pc < count; pc++) {
    const { op, arg } = inst(pc)
    if (op === EMPTY_WIDTH) {
      if ((arg & (BEGIN_LINE | END_LINE)) !== 0) usesLines = true
      if ((arg & (WORD_BOUNDARY | NO_WORD_BOUNDARY)) !== 0) usesWords = true
    } else if (op !== ALT && op !== ALT_MATCH && op !== CAPTURE && op !== FAIL && op !== MATCH && op !== NOP && (op < RUNE || op > RUNE_ANY_NOT_NL)) {
      return { ok: false, message: `uses an instruction (${op}) the linear-time engine does not take` }
    }
  }
  const classes = yield* characterClasses(program, count, usesLines, usesWords, budget)
  if (budget.steps < 0) return tooLarge(`more than the ${MAX_BUILD_STEPS} steps a pattern's expressions may take to build`)

  /**
   * The instructions reached from `pcs` through the steps that take no character. With `flags`
   * null, assertions (EMPTY_WIDTH) and MATCH are stops, kept for the next character to decide: a
   * state's threads. With the assertions that hold before a character, those are followed: the
   * instructions that take a character, and whether MATCH was reached.
   */
  // One array for every walk: a walk marks what it saw with its own number, so none is cleared.
  const seen = new Int32Array(count)
  let walk = 0
  const reach = (pcs: Iterable<number>, flags: number | null): { stops: number[]; matched: boolean } => {
    walk += 1
    const stops: number[] = []
    let matched = false
    const stack = [...pcs]
    while (stack.length > 0) {
      const pc = stack.pop() as number
      if (seen[pc] === walk) continue
      seen[pc] = walk
      budget.steps -= 1
      const i = inst(pc)
      if (i.op === ALT || i.op === ALT_MATCH) stack.push(i.arg, i.out)
      else if (i.op === CAPTURE || i.op === NOP) stack.push(i.out)
      else if (i.op === FAIL) continue
      else if (flags === null) stops.push(pc)
      else if (i.op === MATCH) matched = true
      else if (i.op === EMPTY_WIDTH) {
        if ((i.arg & ~flags) === 0) stack.push(i.out)
      } else stops.push(pc)
    }
    return { stops: flags === null ? stops.sort((x, y) => x - y) : stops, matched }
  }
  const settle = (pcs: Iterable<number>): number[] => reach(pcs, null).stops

  // What a state remembers of the last character: none (the text's start), a newline, a word character, another.
  const NONE = 0
  const NEWLINE_BEFORE = 1
  const WORD_BEFORE = 2
  const OTHER_BEFORE = 3
  const contextOf = (rune: number): number => (usesLines && rune === NEWLINE ? NEWLINE_BEFORE : usesWords && isWordRune(rune) ? WORD_BEFORE : OTHER_BEFORE)
  const flagsBetween = (before: number, next: number | null): number => {
    let flags = 0
    if (before === NONE) flags |= BEGIN_TEXT | BEGIN_LINE
    if (before === NEWLINE_BEFORE) flags |= BEGIN_LINE
    if (next === null) flags |= END_TEXT | END_LINE
    else if (next === NEWLINE) flags |= END_LINE
    const wordBefore = before === WORD_BEFORE
    const wordNext = next !== null && isWordRune(next)
    flags |= wordBefore === wordNext ? NO_WORD_BOUNDARY : WORD_BOUNDARY
    return flags
  }

  const startThreads = settle([program.start])
  const width = classes.representatives.length + 1
  const states: Array<{ pcs: number[]; before: number }> = []
  const ids = new Map<string, number>()
  const idOf = (pcs: number[], before: number): number | null => {
    const key = `${before}:${pcs.join(',')}`
    const known = ids.get(key)
    if (known !== undefined) return known
    if (states.length >= MAX_STATES) return null
    ids.set(key, states.length)
    states.push({ pcs, before })
    return states.length - 1
  }
  const start = idOf(startThreads, NONE) as number
  const cells: number[] = []
  let paused = budget.steps
  for (let s = 0; s < states.length; s++) {
    if (paused - budget.steps >= BUILD_PAUSE) {
      paused = budget.steps
      yield
    }
    if (states.length * width > MAX_CELLS) return tooLarge(`more than ${MAX_CELLS} cells`)
    const { pcs, before } = states[s] as { pcs: number[]; before: number }
    for (const rune of classes.representatives) {
      const { stops: runes, matched } = reach(pcs, flagsBetween(before, rune))
      if (matched) {
        cells.push(ACCEPT)
        continue
      }
      const next = new Set<number>(startThreads)
      for (const pc of runes) {
        const i = inst(pc)
        if (i.op === RUNE_ANY || (i.op === RUNE_ANY_NOT_NL && rune !== NEWLINE) || ((i.op === RUNE || i.op === RUNE1) && i.matchRune(rune))) next.add(i.out)
      }
      const threads = settle(next)
      // The state's key is written out and looked up: its threads count as work too.
      budget.steps -= threads.length + runes.length
      const id = idOf(threads, contextOf(rune))
      if (id === null) return tooLarge(`more than ${MAX_STATES} states`)
      cells.push(id)
    }
    cells.push(reach(pcs, flagsBetween(before, null)).matched ? ACCEPT : 0)
    if (budget.steps < 0) return tooLarge(`more than the ${MAX_BUILD_STEPS} steps a pattern's expressions may take to build`)
  }
  if (cells.length > MAX_CELLS) return tooLarge(`more than ${MAX_CELLS} cells`)
  return { ok: true, table: Int32Array.from(cells), width, start, classOf: classes.classOf }
}

function tooLarge(what: string): { ok: false; message: string } {
  return {
    ok: false,
    message: `needs an automaton of ${what}, more than a rule's expression may (a counted or open repetition followed by many choices, such as a[ab]{20}x$, makes its size grow with every position it must remember); write it with fewer positions to remember`,
  }
}

/**
 * The characters as the program tells them apart: every boundary of a range an instruction takes
 * (with the case forms of a case-folded letter), the newline and word characters when assertions
 * ask for them. Ranges that every instruction treats alike share a class, so a class such as
 * `\p{L}` costs two classes, not one per range. One representative per class decides its steps.
 */
function* characterClasses(
  program: Program,
  count: number,
  usesLines: boolean,
  usesWords: boolean,
  budget: BuildBudget,
): Work<{ representatives: number[]; classOf: (rune: number) => number }> {
  const bounds = new Set<number>([0])
  const cut = (lo: number, hi: number): void => {
    bounds.add(lo)
    if (hi + 1 <= MAX_RUNE) bounds.add(hi + 1)
  }
  const runeInsts: Instruction[] = []
  for (let pc = 0; pc < count; pc++) {
    const i = program.getInst(pc)
    if (i.op === RUNE || i.op === RUNE1) {
      runeInsts.push(i)
      const runes = i.runes
      if (runes.length === 1) {
        const rune = runes[0] as number
        cut(rune, rune)
        if ((i.arg & FOLD_CASE) !== 0) for (const form of caseForms(rune)) cut(form, form)
      } else {
        for (let j = 0; j + 1 < runes.length; j += 2) cut(runes[j] as number, runes[j + 1] as number)
      }
    } else if (i.op === RUNE_ANY_NOT_NL) {
      runeInsts.push(i)
      cut(NEWLINE, NEWLINE)
    } else if (i.op === RUNE_ANY) {
      runeInsts.push(i)
    }
  }
  if (usesLines) cut(NEWLINE, NEWLINE)
  if (usesWords)
    for (const [lo, hi] of [
      [48, 57],
      [65, 90],
      [95, 95],
      [97, 122],
    ] as const)
      cut(lo, hi)
  const starts = [...bounds].sort((a, b) => a - b)
  // Each elementary range is tried against every instruction that takes a character.
  budget.steps -= starts.length * runeInsts.length
  if (budget.steps < 0) return { representatives: [], classOf: () => 0 }
  // Each elementary range's behaviour: which instructions take it, and what assertions see in it.
  const signatures = new Map<string, number>()
  const representatives: number[] = []
  const rangeClass = new Int32Array(starts.length)
  // Ranges between two chances for a slice to end: as many as BUILD_PAUSE steps.
  const perPause = Math.max(1, Math.floor(BUILD_PAUSE / Math.max(1, runeInsts.length)))
  for (let index = 0; index < starts.length; index++) {
    if (index > 0 && index % perPause === 0) yield
    const rune = starts[index] as number
    let signature = rune === NEWLINE ? 'n' : isWordRune(rune) ? 'w' : 'o'
    for (const i of runeInsts) signature += i.op === RUNE_ANY ? '1' : i.op === RUNE_ANY_NOT_NL ? (rune === NEWLINE ? '0' : '1') : i.matchRune(rune) ? '1' : '0'
    let id = signatures.get(signature)
    if (id === undefined) {
      id = representatives.length
      signatures.set(signature, id)
      representatives.push(rune)
    }
    rangeClass[index] = id
  }
  const ascii = new Int32Array(128)
  for (let rune = 0; rune < 128; rune++) ascii[rune] = rangeClass[lastAtMost(starts, rune)] as number
  return {
    representatives,
    classOf: (rune) => (rune < 128 ? (ascii[rune] as number) : (rangeClass[lastAtMost(starts, rune)] as number)),
  }
}

/** The index of the last element of the sorted `list` that is at most `value` (list[0] is 0). */
function lastAtMost(list: readonly number[], value: number): number {
  let lo = 0
  let hi = list.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if ((list[mid] as number) <= value) lo = mid
    else hi = mid - 1
  }
  return lo
}

/**
 * The other case forms of a character, as RE2 folds it (its simple case folding, orbits such as K, k
 * and the Kelvin sign included): read from re2js itself, which expands a case-insensitive class of
 * two characters into every form of each (one of them the last code point, which is its own only form).
 */
function caseForms(rune: number): number[] {
  const known = FOLDS.get(rune)
  if (known !== undefined) return known
  const program = RE2JS.compile(`(?i)[\\x{${rune.toString(16)}}\\x{10FFFF}]`).re2().prog as Program
  const forms: number[] = []
  for (let pc = 0; pc < program.numInst(); pc++) {
    const i = program.getInst(pc)
    if (i.op !== RUNE && i.op !== RUNE1) continue
    for (let j = 0; j + 1 < i.runes.length; j += 2) {
      for (let form = i.runes[j] as number; form <= (i.runes[j + 1] as number); form++) if (form !== rune && form !== MAX_RUNE) forms.push(form)
    }
  }
  FOLDS.set(rune, forms)
  return forms
}

/** Case forms already read, by character (a handful per pattern; kept for the process). */
const FOLDS = new Map<number, number[]>()
