/** Robustness: hostile query texts, filters and header values never get a server error. */
import fc from 'fast-check'
import type { Answer } from '../src/client/client.ts'
import { hostileText, mutatedText } from './arbitraries.ts'
import { shown } from './support.ts'
import type { Contract, ContractContext } from './types.ts'

/** Query texts in the description's forms, which the mutations start from. */
const QUERIES = [
  "$top=5&$skip=0&$orderby=Id asc&$filter=Id eq '1'",
  '$top=3&$orderby=Id desc',
  "$filter=Id eq '1'",
  '$inlinecount=allpages',
  "$inlinecount=allpages&$filter=Id eq '2'",
  "$filter=Id eq 'O''Brien'",
]

/** A 5xx, and for the mock also a 4xx that is no problem document, as a reason; undefined when the answer is acceptable. */
function faultOf(answer: Answer, holdToMock: boolean): string | undefined {
  if (answer.status >= 500) return `${answer.status} ${shown(answer.body, 150)}`
  if (holdToMock && answer.status >= 400) {
    const body = answer.body as { status?: unknown; detail?: unknown } | null
    if (!answer.contentType.startsWith('application/problem+json') || body?.status !== answer.status || typeof body.detail !== 'string' || body.detail === '') {
      return `${answer.status} ${answer.contentType} without a problem document naming what was wrong`
    }
  }
  return undefined
}

/** Runs a property over the target; a counterexample is one failure with the seed to replay it. */
async function property<T>(ctx: ContractContext, what: string, arbitrary: fc.Arbitrary<T>, send: (value: T) => Promise<Answer>): Promise<void> {
  const { runs, seed } = ctx.target.fuzz
  const holdToMock = ctx.target.holdTo === 'mock'
  const result = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => faultOf(await send(value), holdToMock) === undefined),
    { numRuns: runs, seed, endOnFailure: true },
  )
  if (result.failed) {
    const [value] = result.counterexample ?? []
    const answer = value === undefined ? undefined : await send(value)
    ctx.check(false, {
      expected: `no server error (5xx) for ${what}`,
      received: `${answer === undefined ? 'a failure' : faultOf(answer, holdToMock)} for ${shown(value, 200)} (fast-check seed ${seed}, path ${result.counterexamplePath})`,
    })
  }
}

export const hostileQueries: Contract = {
  id: 'robustness.hostile-queries',
  title: 'Get Items answers random and mutated query texts without a server error (5xx)',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  tags: ['fuzz'],
  deviation: 'quote-crash',
  async run(ctx: ContractContext) {
    const texts = fc.oneof(mutatedText(QUERIES), hostileText(60).map((text) => `$filter=${text}`), fc.constantFrom(...QUERIES))
    await property(ctx, 'a query text', texts, (text) =>
      ctx.profile.itemsQuery === 'queryItems'
        ? ctx.client.call('queryItems', { body: { query: text } })
        : ctx.client.call('queryItemsLegacy', { query: Object.fromEntries(new URLSearchParams(text)) }),
    )
  },
}

export const hostileAttachmentFilters: Contract = {
  id: 'robustness.hostile-attachment-filters',
  title: 'Get Attachments List answers random and mutated $filter texts without a server error (5xx)',
  severity: 'medium',
  holdsTo: 'description',
  writes: false,
  needs: [],
  tags: ['fuzz'],
  async run(ctx: ContractContext) {
    const filters = fc.oneof(mutatedText(["ParentId eq 1", 'ParentId eq 1 and FolderId eq 2']), hostileText(40))
    await property(ctx, 'an attachments $filter', filters, (filter) => ctx.client.call('listAttachments', { query: { $filter: filter } }))
  },
}

export const hostileTokens: Contract = {
  id: 'robustness.hostile-tokens',
  title: 'A data call with a random or hostile session token is refused, never a server error',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  tags: ['fuzz'],
  async run(ctx: ContractContext) {
    // A header value can hold printable ASCII only (HTTP clients refuse the rest before sending).
    const tokens = hostileText(60).map((text) => text.replace(/[^\u0020-\u007e]/g, '').trim()).filter((text) => text !== '')
    await property(ctx, 'a SessionToken', tokens, async (token) => {
      const answer = await ctx.anonymous().call(ctx.profile.itemsQuery, ctx.profile.itemsQuery === 'queryItems' ? { body: { query: '$top=1' }, token } : { query: { $top: 1 }, token })
      // Accepting a made-up token is worse than any error: report it as one.
      return answer.status === 200 ? { ...answer, status: 599, body: 'a made-up token was accepted' } : answer
    })
  },
}

export const contracts = [hostileQueries, hostileAttachmentFilters, hostileTokens]
