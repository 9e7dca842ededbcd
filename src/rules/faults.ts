import type { OpenAPIObject } from 'openapi3-ts/oas31'
import type { Violation } from '../errors.ts'
import { responseOf, type OperationEntry } from '../document/reader.ts'
import { GATEWAY_STATUSES, isGatewayStatus } from '../wire/gateway-statuses.ts'
import { headerViolations } from './valid-http.ts'
import { strictViolation } from './strict.ts'
import type { RuleCheckContext } from './answer-check.ts'

/**
 * Fault rules (`POST /__mock/faults`): the infrastructure's answer to a request, on arrival, by
 * operation only (added latency, an error status, a dropped connection, or a connection cut after
 * the handler has written). This module is what a fault rule is and what makes one acceptable;
 * the table (table.ts) holds them and decide.ts picks the one that applies.
 */

/** A fault rule as a test writes it (the `FaultRule` schema of spec/control-plane/). */
export interface FaultRuleInput {
  /** An operationId of the API document, or `*` for every API operation. */
  operationId: string
  latencyMs?: number
  status?: number
  /** Headers of the `status` answer (`Retry-After`), under the header rules of answer rules (valid-http.ts). */
  headers?: Record<string, string>
  drop?: boolean
  commitThenDrop?: boolean
  /** Probability, 0..1, that the rule applies to a matching request (default 1). */
  rate?: number
  /** Apply this many times, then remove the rule. */
  times?: number
  /** Accept a `status` the operation's document does not list (not a gateway status); its answers carry OFF_DOCUMENT_ANSWER. */
  offDocument?: boolean
}

/** A rule as the mock holds it, with its use so far (the `ActiveFaultRule` schema). */
export interface ActiveFaultRule extends FaultRuleInput {
  id: number
  rate: number
  remaining: number | null
  applied: number
}

/** The active rules and the seed behind `rate` (the `FaultList` schema). */
export interface FaultList {
  seed: number
  rules: ActiveFaultRule[]
}

/** What a fault does to one request. */
export interface FaultDecision {
  ruleId: number
  latencyMs: number
  /** The effect after the delay; null for a rule that only delays. */
  action:
    | { kind: 'status'; status: number; headers: Readonly<Record<string, string>>; standing: StatusStanding }
    | { kind: 'drop' }
    | { kind: 'commitThenDrop' }
    | null
}

/**
 * Where a status stands to the operation's document, which decides an answer's warning: a gateway
 * status is the infrastructure's (INFRASTRUCTURE_ANSWER), one the document lists is the
 * installation's (no warning), any other is off the document (OFF_DOCUMENT_ANSWER).
 */
export type StatusStanding = 'gateway' | 'documented' | 'offDocument'

/** Where `status` stands for the operation `entry` (undefined: every operation, where only gateway statuses are allowed). */
export function statusStanding(document: OpenAPIObject, entry: OperationEntry | undefined, status: number): StatusStanding {
  if (isGatewayStatus(status)) return 'gateway'
  return entry !== undefined && responseOf(document, entry, status) !== undefined ? 'documented' : 'offDocument'
}

/** What a fault did to a request, as the journal records it. */
export type FaultEffect = 'latency' | 'status' | 'drop' | 'commitThenDrop'

/** The journal's name for a decision's effect. */
export function effectOf(decision: FaultDecision): FaultEffect {
  return decision.action === null ? 'latency' : decision.action.kind
}

/** The rules of a set, numbered in order, as the table holds them (copies: the caller's objects are never shared). */
export function activeFaultRules(rules: readonly FaultRuleInput[]): ActiveFaultRule[] {
  return rules.map((rule, index) => ({ id: index + 1, ...copyRule(rule), rate: rule.rate ?? 1, remaining: rule.times ?? null, applied: 0 }))
}

/**
 * The decision a rule makes for a request it applies to, made once when the rule is set; `standing`
 * is where its status stands to the operation's document (`statusStanding`).
 */
export function faultDecision(rule: ActiveFaultRule, standing: StatusStanding): FaultDecision {
  return { ruleId: rule.id, latencyMs: rule.latencyMs ?? 0, action: actionOf(rule, standing) }
}

function actionOf(rule: FaultRuleInput, standing: StatusStanding): FaultDecision['action'] {
  if (rule.status !== undefined)
    return {
      kind: 'status',
      status: rule.status,
      headers: Object.fromEntries(Object.entries(rule.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value])),
      standing,
    }
  if (rule.drop === true) return { kind: 'drop' }
  if (rule.commitThenDrop === true) return { kind: 'commitThenDrop' }
  return null
}

/** Only the members the schema knows, so a caller's object is never shared with the table. */
function copyRule(rule: FaultRuleInput): FaultRuleInput {
  const copy: FaultRuleInput = { operationId: rule.operationId }
  if (rule.latencyMs !== undefined) copy.latencyMs = rule.latencyMs
  if (rule.status !== undefined) copy.status = rule.status
  if (rule.headers !== undefined) copy.headers = { ...rule.headers }
  if (rule.drop !== undefined) copy.drop = rule.drop
  if (rule.commitThenDrop !== undefined) copy.commitThenDrop = rule.commitThenDrop
  if (rule.times !== undefined) copy.times = rule.times
  if (rule.offDocument !== undefined) copy.offDocument = rule.offDocument
  return copy
}

/**
 * What the schema cannot say of one rule: one effect at most, at least one, an operation the
 * release has (a misspelt one would silently never match), headers that are valid HTTP and go with
 * a status, and a status the operation may answer: a gateway status anywhere, another only where
 * the document lists it or with `offDocument: true`, and only gateway statuses for every operation.
 * `strict` lists the violations strict mode alone adds (an off-document status with
 * `offDocument: true`, pointing at the rule's `offDocument`), apart, so the caller refuses them as
 * STRICT_MODE only when nothing else is wrong.
 */
export function faultRuleViolations(rule: FaultRuleInput, index: number, context: RuleCheckContext): { violations: Violation[]; strict: Violation[] } {
  const at = `/body/rules/${index}`
  const out: Violation[] = []
  const strict: Violation[] = []
  // `*` (every operation) is no operation's name: it finds no entry.
  const entry = context.operations.get(rule.operationId)
  if (rule.operationId !== '*' && entry === undefined) {
    const names = [...context.operations.keys()].sort().join(', ')
    out.push({ pointer: `${at}/operationId`, keyword: 'operationId', message: `is not an operation of this release; use * or one of ${names}` })
  }
  const effects = (['status', 'drop', 'commitThenDrop'] as const).filter((name) => (name === 'status' ? rule.status !== undefined : rule[name] === true))
  if (effects.length > 1) {
    out.push({
      pointer: `${at}/${effects[1]}`,
      keyword: 'oneEffect',
      message: `cannot go with ${effects[0]}: a rule has at most one of status, drop and commitThenDrop`,
    })
  }
  if (effects.length === 0 && (rule.latencyMs ?? 0) === 0) {
    out.push({ pointer: at, keyword: 'effect', message: 'does nothing: give latencyMs, status, drop or commitThenDrop' })
  }
  if (rule.headers !== undefined && rule.status === undefined) {
    out.push({
      pointer: `${at}/headers`,
      keyword: 'headersWithStatus',
      message:
        'go only with status: they are headers of the answer a status fault gives (drop and commitThenDrop answer nothing, latencyMs leaves the answer as it is)',
    })
  }
  out.push(...headerViolations(rule.headers, `${at}/headers`, { contentType: false }))
  const status = rule.status
  if (status !== undefined && !isGatewayStatus(status)) {
    const gateway = GATEWAY_STATUSES.join(', ')
    if (rule.operationId === '*') {
      out.push({
        pointer: `${at}/status`,
        keyword: 'everyOperation',
        message: `${status} is not a gateway status: a fault for every operation (*) takes a gateway status (${gateway}), drop, commitThenDrop and latencyMs only; name the operation that answers ${status}`,
      })
    } else if (entry !== undefined && statusStanding(context.document, entry, status) === 'offDocument') {
      const violation: Violation = {
        pointer: `${at}/status`,
        keyword: 'offDocument',
        message: `${status} is not a status ${entry.operationId} answers with (the document lists ${Object.keys(entry.operation.responses ?? {}).join(', ')}; a gateway status, ${gateway}, goes anywhere); add "offDocument": true to answer it anyway`,
      }
      if (rule.offDocument !== true) out.push(violation)
      else if (context.strict) strict.push(strictViolation(`${at}/offDocument`), violation)
    }
  }
  return { violations: out, strict }
}
