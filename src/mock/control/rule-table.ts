/**
 * The one table of a mock's rules: fault rules (`/__mock/faults`) and answer rules
 * (`/__mock/stubs`) are two kinds of entry in one ordered list. Fault rules come first, in the
 * order they were set (they act first: when a request arrives, before it is authenticated or its
 * body read); answer rules follow in the order they are tried (priority, then newest first),
 * consulted once the request is authenticated and checked. A request takes at most one rule
 * that answers for it: a fault rule that fails, drops or cuts it leaves no answer rule a turn; a
 * fault rule that only delays does. The two views (fault-table.ts, answer-rules.ts) keep their
 * own interfaces and checks; this module owns the list.
 */

/** One entry: a fault rule or an answer rule, each as its own module holds it. */
export type RuleEntry<F, A> = { kind: 'fault'; rule: F } | { kind: 'answer'; rule: A }

/** The ordered list both kinds live in. */
export interface RuleList<F = unknown, A = unknown> {
  /** Every entry, fault rules first; read on the request path, never copied there. */
  readonly entries: ReadonlyArray<RuleEntry<F, A>>
  /** Replaces the fault rules (kept in this order); answer rules stay. */
  setFaults(rules: F[]): void
  /** Adds an answer rule and puts the answer rules in the order `before` says. */
  addAnswer(rule: A, before: (a: A, b: A) => number): void
  /** Removes one rule of either kind (by identity). */
  remove(rule: F | A): void
  /** Removes every rule of one kind; returns how many there were. */
  clear(kind: 'fault' | 'answer'): number
  /** How many rules of a kind there are. */
  count(kind: 'fault' | 'answer'): number
}

export function createRuleList<F, A>(): RuleList<F, A> {
  let entries: Array<RuleEntry<F, A>> = []
  let faults = 0
  const answers = (): Array<{ kind: 'answer'; rule: A }> => entries.flatMap((entry) => (entry.kind === 'answer' ? [entry] : []))
  return {
    get entries() {
      return entries
    },
    setFaults(rules) {
      entries = [...rules.map((rule): RuleEntry<F, A> => ({ kind: 'fault', rule })), ...answers()]
      faults = rules.length
    },
    addAnswer(rule, before) {
      const sorted = [...answers(), { kind: 'answer' as const, rule }].sort((a, b) => before(a.rule, b.rule))
      entries = [...entries.filter((entry) => entry.kind === 'fault'), ...sorted]
    },
    remove(rule) {
      const removed = entries.filter((entry) => (entry.rule as F | A) === rule)
      entries = entries.filter((entry) => (entry.rule as F | A) !== rule)
      faults -= removed.filter((entry) => entry.kind === 'fault').length
    },
    clear(kind) {
      const count = entries.filter((entry) => entry.kind === kind).length
      entries = entries.filter((entry) => entry.kind !== kind)
      if (kind === 'fault') faults = 0
      return count
    },
    count: (kind) => (kind === 'fault' ? faults : entries.length - faults),
  }
}
