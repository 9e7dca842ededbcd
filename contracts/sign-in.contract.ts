/** Sign-in: the token result of each release's form, and refusals of wrong credentials. */
import { RANGES } from '../spec/versions.ts'
import type { Answer } from '../src/client/client.ts'
import { isRefusal, shown } from './support.ts'
import type { Contract, ContractContext } from './types.ts'

/** A sign-in answer for the target's user, with the password given (the right one by default). */
function signInAnswer(ctx: ContractContext, password = ctx.target.credentials.password): Promise<Answer> {
  return ctx.anonymous().signInAnswer({ username: ctx.target.credentials.username, password }, ctx.profile.signIn)
}

/** The token a data call accepts: a read with it answers rows. */
async function checkTokenOpens(ctx: ContractContext, token: string): Promise<void> {
  const reply = await ctx.anonymous().items({ top: 1 }, { token })
  ctx.check(reply.status === 200 && Array.isArray(reply.body), {
    expected: 'a read with the new token to answer rows',
    received: `${reply.status} ${ctx.show(reply.body)}`,
  })
}

export const tokenResult: Contract = {
  id: 'sign-in.token-result',
  title: 'Sign-in answers a token result (access_token, expires_in an integer, token-type and scope as text) whose token opens data calls',
  severity: 'critical',
  holdsTo: 'description',
  writes: false,
  needs: [],
  releases: RANGES.current,
  deviation: 'expires-in-text',
  statements: ['sign-in.current', 'sign-in.before-3.0.19', 'resources.token-result', 'auth.sign-in', 'service.session-header', 'versioning.sign-in'],
  data: "the user given to verify, signed in with the form of the target's release (with the organization segment from 3.0.19, without before); the token then used for a read of one row",
  async run(ctx: ContractContext) {
    const answer = await signInAnswer(ctx)
    ctx.require(answer.status === 200, { expected: 'sign-in to answer 200', received: `${answer.status} ${ctx.show(answer.body)}` })
    const body = answer.body as Record<string, unknown>
    ctx.check(typeof body.access_token === 'string' && body.access_token !== '', {
      expected: 'access_token as a non-empty text',
      received: ctx.show(body.access_token),
    })
    ctx.check(Number.isInteger(body.expires_in) && Number(body.expires_in) > 0, {
      expected: 'expires_in as a positive integer',
      received: shown(body.expires_in),
    })
    ctx.check(typeof body['token-type'] === 'string' && typeof body.scope === 'string', {
      expected: 'token-type and scope as text',
      received: shown({ 'token-type': body['token-type'], scope: body.scope }),
    })
    if (typeof body.access_token === 'string') await checkTokenOpens(ctx, body.access_token)
  },
}

export const legacyResult: Contract = {
  id: 'sign-in.legacy-result',
  title: "Legacy sign-in answers the user's Domain and a SessionToken that opens data calls",
  severity: 'critical',
  holdsTo: 'description',
  writes: false,
  needs: [],
  releases: RANGES.legacy,
  statements: ['sign-in.legacy', 'resources.legacy-token-result', 'auth.legacy-token', 'versioning.older-forms'],
  data: 'the user given to verify, signed in with the legacy form (releases before 3.0); the SessionToken then used for a read of one row',
  async run(ctx: ContractContext) {
    const answer = await signInAnswer(ctx)
    ctx.require(answer.status === 200, { expected: 'legacy sign-in to answer 200', received: `${answer.status} ${ctx.show(answer.body)}` })
    const body = answer.body as { SessionToken?: unknown; Domain?: { Id?: unknown } }
    ctx.check(typeof body.SessionToken === 'string' && body.SessionToken !== '', {
      expected: 'SessionToken as a non-empty text',
      received: ctx.show(body.SessionToken),
    })
    ctx.check(typeof body.Domain?.Id === 'string', { expected: 'Domain.Id as a GUID text', received: ctx.show(body.Domain) })
    if (typeof body.SessionToken === 'string') await checkTokenOpens(ctx, body.SessionToken)
  },
}

export const wrongPasswordRefused: Contract = {
  id: 'sign-in.wrong-password-refused',
  title: 'Sign-in with a wrong password is refused and gives no token',
  severity: 'critical',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'any-password',
  statements: ['auth.sign-in'],
  data: 'the user given to verify with its password altered; no status is required, only a refusal without a token',
  async run(ctx: ContractContext) {
    const answer = await signInAnswer(ctx, `${ctx.target.credentials.password}-not`)
    const body = answer.body as Record<string, unknown> | null
    const token = body?.access_token ?? body?.SessionToken
    ctx.check(isRefusal(answer) && token === undefined, {
      expected: 'a refusal (4xx, or a redirect to sign in) without a token',
      received: `${answer.status}${token === undefined ? '' : ' with a token'}`,
    })
  },
}

export const refusalProblem: Contract = {
  id: 'sign-in.refusal-problem',
  title: 'A refused sign-in answers 400 problem+json with the OAuth error invalid_grant',
  severity: 'low',
  holdsTo: 'mock',
  writes: false,
  needs: [],
  releases: RANGES.current,
  async run(ctx: ContractContext) {
    const answer = await signInAnswer(ctx, `${ctx.target.credentials.password}-not`)
    ctx.check(answer.status === 400 && answer.contentType.startsWith('application/problem+json'), {
      expected: '400 application/problem+json',
      received: `${answer.status} ${answer.contentType}`,
    })
    ctx.check((answer.body as { error?: unknown }).error === 'invalid_grant', { expected: 'error "invalid_grant"', received: ctx.show(answer.body) })
  },
}

export const contracts = [tokenResult, legacyResult, wrongPasswordRefused, refusalProblem]
