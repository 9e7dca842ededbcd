/**
 * Scenario states of answer rules (WireMock's scenarios): a rule with `whenState` matches only
 * while its scenario is in that state, and a rule with `setState` moves its scenario when it
 * answers. Every scenario starts in `Started`; a reset or `clearStubs()` forgets every state.
 */

/** The state every scenario starts in (as in WireMock). */
export const STARTED = 'Started'

/** The states of one mock's scenarios. */
export interface Scenarios {
  stateOf(scenario: string): string
  move(scenario: string, state: string): void
  /** Every scenario named by `named` (in its state, `Started` if never moved) and every one ever moved. */
  listed(named: Iterable<string>): Record<string, string>
  clear(): void
}

export function createScenarios(): Scenarios {
  const states = new Map<string, string>()
  const stateOf = (scenario: string): string => states.get(scenario) ?? STARTED
  return {
    stateOf,
    move: (scenario, state) => void states.set(scenario, state),
    listed(named) {
      const out: Record<string, string> = {}
      for (const scenario of named) out[scenario] = stateOf(scenario)
      for (const [scenario, state] of states) out[scenario] = state
      return out
    },
    clear: () => states.clear(),
  }
}
