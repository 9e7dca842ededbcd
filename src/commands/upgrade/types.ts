/**
 * The report of `appdata-kit upgrade`: what a client that recorded a usage file meets on another
 * release, as findings, one per change, in the client's terms.
 */

/**
 * What changed, as the client meets it:
 * - `path-moved`: the operation the client calls is served at another path (same method);
 * - `variant-gone`: the form the client uses is gone, another takes its place (another method or body);
 * - `request-refused`: the target refuses a member, header or body of the client's request;
 * - `request-tolerated`: the target takes it only with a warning (a stricter installation may refuse it);
 * - `answer-renamed`, `answer-removed`, `answer-retyped`: a member the client received is named otherwise, gone, or of another JSON type;
 * - `status-changed`: the target answers another status than the client met;
 * - `unreplayable`: the recorded release itself refuses the replay (the usage was recorded with another fixture?): nothing can be said.
 */
export const FINDING_KINDS = [
  'path-moved',
  'variant-gone',
  'request-refused',
  'request-tolerated',
  'answer-renamed',
  'answer-removed',
  'answer-retyped',
  'status-changed',
  'unreplayable',
] as const

export type FindingKind = (typeof FINDING_KINDS)[number]

/** One side of a change: what the client sends or reads today (`now`), or what the target takes or answers (`then`). */
export interface FindingSide {
  method?: string
  /** The path, with the document's path parameters in braces (`/identityprovider/{organizationphysicalname}/connect/token`). */
  path?: string
  contentType?: string
  /** The body, as a shape: member names with their types (`{ "query": string }`). */
  body?: string
  /** A header the request needs (`WorkspaceId`). */
  header?: string
  /**
   * What the client must send that it does not send today, member by member (`[].` before a
   * member of each item of a list), with the value the target's document gives, as JSON
   * (`"openid apiv1 nosession"`: a const, an enum's values joined by ` | `, a default or an
   * example), or its type where the document gives none (`string|null`).
   */
  send?: Record<string, string>
  /** Where the token this sign-in answers goes: the answer member that holds it, and the header each of the client's operations sends it in. */
  token?: TokenSide
  /** An answer member (`IsSaveSuccesfully`, `[].Customer` for a member of each row) and its JSON type. */
  member?: string
  type?: string
  status?: number
  /** The answer of an operation that takes the client's place: its members, and those the client reads that it lacks. */
  answer?: string
  /** A warning code the target answers the request with. */
  warning?: string
  /** One recorded request it touches, written out with its values as types. */
  example?: string
}

/** Where a release wants a sign-in's token. */
export interface TokenSide {
  /** The member of the sign-in's answer that holds the token (`access_token`), when the document names it. */
  member?: string
  /** Each header the token goes in (`SessionToken`, `Authorization: Bearer`), with the client's operations that send it there. */
  headers: Array<{ header: string; operationIds: string[] }>
}

/** One change the client meets on the target release. */
export interface Finding {
  kind: FindingKind
  /** The operation the client calls; a list of them when one change meets the answers of several (`["deleteItems", "saveItems"]`). */
  operationId: string | string[]
  /** Whether the client breaks on it (false: taken with a warning, or a status the client met that the target no longer lists). */
  breaks: boolean
  /** How many recorded request shapes meet it. */
  shapes: number
  message: string
  now: FindingSide
  then: FindingSide
}

/** The operations a finding touches, as a list (one or several). */
export const operationsOf = (finding: Pick<Finding, 'operationId'>): string[] =>
  Array.isArray(finding.operationId) ? finding.operationId : [finding.operationId]

/** The operations a finding touches as the text reports write them: `deleteItems, saveItems`. */
export const operationText = (finding: Pick<Finding, 'operationId'>): string => operationsOf(finding).join(', ')

/** An accepted finding, as the ignore file named it, with the reason it gave. */
export interface IgnoredFinding extends Finding {
  reason?: string
}

/** The report: the releases, the findings, and the findings an ignore file accepted. */
export interface UpgradeReport {
  from: string
  to: string
  findings: Finding[]
  /** Findings `--ignore` accepted: reported, never counted in the exit code. Left out when there are none. */
  ignored?: IgnoredFinding[]
}
