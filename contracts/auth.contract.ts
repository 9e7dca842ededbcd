/** Data calls and e-mail refuse a missing or unknown token. */
import type { ReadRow } from '../src/client/client.ts'
import { isRefusal } from './support.ts'
import type { Contract, ContractContext } from './types.ts'

const GARBAGE = 'not-a-token-of-this-installation-0123456789'

/** A read with the given token (null: none): refused, and no rows in the answer. */
async function checkReadRefused(ctx: ContractContext, token: string | null, what: string): Promise<void> {
  const answer = await ctx
    .anonymous()
    .call(ctx.profile.itemsQuery, ctx.profile.itemsQuery === 'queryItems' ? { body: { query: '$top=1' }, token } : { query: { $top: 1 }, token })
  ctx.check(isRefusal(answer) && !Array.isArray(answer.body), {
    expected: `a read ${what} to be refused (4xx, or a redirect to sign in), with no rows`,
    received: `${answer.status} ${ctx.show(answer.body, 120)}`,
  })
}

/**
 * Queues an e-mail with the token (null: none); it must be refused. Should it not be, an e-mail
 * goes out, so this is a write: sent only with --allow-writes, and only to --email-to.
 */
async function checkEmailRefused(ctx: ContractContext, token: string | null, what: string): Promise<void> {
  const to = ctx.target.emailTo
  if (to === undefined || !ctx.target.allowWrites) {
    // Name only the flags missing: telling a user who gave --allow-writes to add it sends them looking in the wrong place.
    const missing = [ctx.target.allowWrites ? '' : '--allow-writes', to === undefined ? '--email-to' : ''].filter((flag) => flag !== '')
    ctx.note(`an e-mail ${what} was not tried, so its refusal is unchecked (needs ${missing.join(' and ')})`)
    return
  }
  const answer = await ctx
    .anonymous()
    .call('sendEmail', { body: { to: [to], subject: 'appdata-kit verify: must not be sent', body: 'A refused call queued this e-mail.' }, token })
  ctx.check(isRefusal(answer), { expected: `an e-mail ${what} to be refused (4xx, or a redirect to sign in)`, received: String(answer.status) })
}

export const missingTokenRefused: Contract = {
  id: 'auth.missing-token-refused',
  title: 'A data call, and an e-mail, without a session token are refused',
  severity: 'critical',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'no-auth',
  statements: ['auth.session-token', 'auth.bearer'],
  data: 'a read of one row, and (with --allow-writes and --email-to) an e-mail to that address, sent with no token',
  async run(ctx: ContractContext) {
    await checkReadRefused(ctx, null, 'without a SessionToken')
    await checkEmailRefused(ctx, null, 'without Authorization')
  },
}

export const garbageTokenRefused: Contract = {
  id: 'auth.unknown-token-refused',
  title: 'A data call, and an e-mail, with a token the installation never issued are refused',
  severity: 'critical',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'no-auth',
  statements: ['auth.session-token', 'auth.bearer'],
  data: 'a read of one row, and (with --allow-writes and --email-to) an e-mail to that address, sent with a token the installation never issued',
  async run(ctx: ContractContext) {
    await checkReadRefused(ctx, GARBAGE, 'with an unknown SessionToken')
    await checkEmailRefused(ctx, GARBAGE, 'with an unknown bearer token')
  },
}

export const refusalProblem: Contract = {
  id: 'auth.refusal-problem',
  title: 'A missing or unknown token answers 401 problem+json with MISSING_TOKEN or UNKNOWN_TOKEN',
  severity: 'low',
  holdsTo: 'mock',
  writes: false,
  needs: [],
  async run(ctx: ContractContext) {
    for (const [token, code] of [
      [null, 'MISSING_TOKEN'],
      [GARBAGE, 'UNKNOWN_TOKEN'],
    ] as const) {
      const answer = await ctx
        .anonymous()
        .items({ top: 1 }, { token })
        .catch((error: { answer?: unknown }) => error.answer as { status: number; body: unknown })
      ctx.check(answer.status === 401 && (answer.body as { code?: unknown }).code === code, {
        expected: `401 with code ${code}`,
        received: `${answer.status} ${ctx.show(answer.body, 150)}`,
      })
    }
  },
}

/** The first 5 master rows by Id, read in the release's form with some headers replaced: the read a wrong identifier must answer none of the rows of. */
function firstRowsWith(ctx: ContractContext, headers: Record<string, string>) {
  return ctx.client.call(
    ctx.profile.itemsQuery,
    ctx.profile.itemsQuery === 'queryItems' ? { body: { query: '$top=5&$orderby=Id%20asc' }, headers } : { query: { $top: 5, $orderby: 'Id asc' }, headers },
  )
}

/** A Workspace Id no installation hands out: the nil GUID's neighbour. */
const UNKNOWN_WORKSPACE = '00000000-0000-4000-8000-0000000000ad'

export const otherWorkspaceNoRows: Contract = {
  id: 'auth.unknown-workspace-no-rows',
  title: "A read that names a Workspace Id other than the application's answers none of its rows",
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'ignore-workspace',
  statements: ['endpoints.headers', 'versioning.workspace-id', 'service.identifiers'],
  data: 'the first master rows read with the right WorkspaceId, then $top=5 with a WorkspaceId the installation never issued; no status is required (the description states none), only that none of the rows come back',
  async run(ctx: ContractContext) {
    const ids = new Set((await ctx.facts.masters(ctx.client)).map((row) => row.Id))
    const answer = await firstRowsWith(ctx, { WorkspaceId: UNKNOWN_WORKSPACE })
    const leaked = Array.isArray(answer.body) ? (answer.body as Array<{ Id?: unknown }>).filter((row) => ids.has(row.Id as number)) : []
    ctx.check(leaked.length === 0, {
      expected: `none of the application's rows for WorkspaceId ${UNKNOWN_WORKSPACE}`,
      received: `${answer.status} with rows ${leaked.map((row) => String(row.Id)).join(', ')}`,
    })
  },
}

/** An Application Id no installation hands out. */
const UNKNOWN_APPLICATION = '00000000-0000-4000-8000-0000000000ae'

export const otherApplicationNoRows: Contract = {
  id: 'auth.unknown-application-no-rows',
  title: "A read that names an ApplicationId other than the application's answers none of its rows",
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'ignore-application',
  statements: ['endpoints.headers', 'service.identifiers'],
  data: 'the first master rows read with the right ApplicationId, then $top=5 in the same workspace with an ApplicationId the installation never issued; no status is required (the description states none), only that none of the rows come back',
  async run(ctx: ContractContext) {
    const masters = await ctx.facts.masters(ctx.client)
    const answer = await firstRowsWith(ctx, { ApplicationId: UNKNOWN_APPLICATION })
    // Another application may hold rows with the same Ids: only a row equal to one of this application's, field for field, is a leak.
    const leaked = Array.isArray(answer.body)
      ? (answer.body as ReadRow[]).filter((row) => masters.some((master) => JSON.stringify(master) === JSON.stringify(row)))
      : []
    ctx.check(leaked.length === 0, {
      expected: `none of the application's rows for ApplicationId ${UNKNOWN_APPLICATION}`,
      received: `${answer.status} with rows ${leaked.map((row) => String(row.Id)).join(', ')}`,
    })
  },
}

export const contracts = [missingTokenRefused, garbageTokenRefused, refusalProblem, otherWorkspaceNoRows, otherApplicationNoRows]
