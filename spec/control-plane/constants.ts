/** Values the control plane's routes and handlers share with its document. */

/** Path prefix of every control-plane route. */
export const CONTROL_PREFIX = '/__mock'

/** Header that carries the control token, as an alternative to `Authorization: Bearer`. */
export const CONTROL_TOKEN_HEADER = 'X-Mock-Control-Token'

/** Largest number of fault rules one call may set (keeps the per-request scan short). */
export const MAX_FAULT_RULES = 100

/** Longest latency a fault rule may add: two minutes, longer than any sensible client timeout. */
export const MAX_FAULT_LATENCY_MS = 120_000

/** Furthest one clock call may move the clock: ten years. */
export const MAX_CLOCK_ADVANCE_MS = 10 * 365 * 24 * 3600 * 1000

/** Largest number of answer rules a mock holds at once (keeps the per-request scan short). */
export const MAX_ANSWER_RULES = 500

/** Largest answer rule, as JSON (its pattern and answer together): 1 MB. */
export const MAX_ANSWER_RULE_BYTES = 1024 * 1024

/** Largest size of all the answer rules a mock holds together, as JSON: 16 MB (what `GET /__mock/stubs` may answer). */
export const MAX_ANSWER_RULES_BYTES = 16 * 1024 * 1024

/** Longest delay an answer rule may add: one minute. */
export const MAX_ANSWER_DELAY_MS = 60_000

/**
 * How deep an answer rule's body or merge patch may nest (containers within containers). The API's
 * answers nest about ten levels; the bound keeps a rule's answer within what every step that walks
 * it (the document's validator, the merge, the journal) handles without running out of stack.
 */
export const MAX_ANSWER_DEPTH = 64

/** Most uses a rule may count (`times`), fault or answer rule: the largest 32-bit signed integer, 2^31 - 1. */
export const MAX_RULE_TIMES = 2_147_483_647

/** The priority of an answer rule that names none (WireMock's default); lower numbers are tried first. */
export const DEFAULT_ANSWER_PRIORITY = 5

/**
 * Control operations whose body the mock checks itself, not against the document when the request
 * arrives: an upload's parts once read, a fixture by the fixture loader, whose refusals name
 * paths in the fixture, and an answer rule, whose nesting is bounded before anything walks it and
 * whose `operationId: "*"` gets a plain answer rather than a regular expression (src/rules/answers.ts,
 * which `mock.stub()` calls too). No body validator is generated for them (request-validators.ts).
 */
export const OWN_BODY_CHECK: ReadonlySet<string> = new Set(['uploadAttachments', 'loadFixture', 'addStub'])
