/**
 * Robustness: hostile query texts, filters and tokens. The description defines no error status
 * (Errors, 4 and 5), so "no server error" is the mock's promise; an installation is held only to
 * refusing a token it never issued, and its server errors are noted, not failed.
 */
import fc from 'fast-check'
import type { Answer } from '../src/client/client.ts'
import { harmlessText, hostileText, mutatedText } from './arbitraries.ts'
import { checkProperty } from './property.ts'
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

/** What is wrong with an answer: a fault fails the contract, a remark is only noted. */
type Verdict = { fault: string } | { remark: string } | undefined

/** The mock's promise: no 5xx, and a 4xx is a problem document naming what was wrong. */
function mockFault(answer: Answer): Verdict {
  if (answer.status >= 500) return { fault: `${answer.status} ${shown(answer.body, 150)}` }
  if (answer.status >= 400) {
    const body = answer.body as { status?: unknown; detail?: unknown } | null
    if (!answer.contentType.startsWith('application/problem+json') || body?.status !== answer.status || typeof body.detail !== 'string' || body.detail === '') {
      return { fault: `${answer.status} ${answer.contentType} without a problem document naming what was wrong` }
    }
  }
  return undefined
}

/** Runs a property over the target; a counterexample is one failure with the seed to replay it, remarks become notes. */
async function property<T>(
  ctx: ContractContext,
  what: string,
  arbitrary: fc.Arbitrary<T>,
  send: (value: T) => Promise<Answer>,
  judge: (answer: Answer) => Verdict,
): Promise<void> {
  const { runs, seed } = ctx.target.fuzz
  const result = await checkProperty(
    ctx,
    fc.asyncProperty(arbitrary, async (value) => {
      const verdict = judge(await send(value))
      if (verdict !== undefined && 'remark' in verdict) ctx.note(`${verdict.remark} for ${what} (fast-check seed ${seed})`)
      return verdict === undefined || !('fault' in verdict)
    }),
    { numRuns: runs, seed },
  )
  if (result.failed) {
    const [value] = result.counterexample ?? []
    const verdict = value === undefined ? undefined : judge(await send(value))
    ctx.check(false, {
      expected: `no fault for ${what}`,
      received: `${verdict !== undefined && 'fault' in verdict ? verdict.fault : 'a failure'} for ${shown(value, 200)} (fast-check seed ${seed}, path ${result.counterexamplePath})`,
    })
  }
}

export const hostileQueries: Contract = {
  id: 'robustness.hostile-queries',
  title: 'Get Items answers random and mutated query texts with a problem document, never a server error (5xx)',
  severity: 'high',
  holdsTo: 'mock',
  writes: false,
  needs: [],
  tags: ['fuzz'],
  deviation: 'quote-crash',
  async run(ctx: ContractContext) {
    const texts = fc.oneof(
      mutatedText(QUERIES),
      hostileText(60).map((text) => `$filter=${text}`),
      fc.constantFrom(...QUERIES),
    )
    await property(
      ctx,
      'a query text',
      texts,
      (text) =>
        ctx.profile.itemsQuery === 'queryItems'
          ? ctx.client.call('queryItems', { body: { query: text } })
          : ctx.client.call('queryItemsLegacy', { query: Object.fromEntries(new URLSearchParams(text)) }),
      mockFault,
    )
  },
}

export const hostileAttachmentFilters: Contract = {
  id: 'robustness.hostile-attachment-filters',
  title: 'Get Attachments List answers random and mutated $filter texts with a problem document, never a server error (5xx)',
  severity: 'medium',
  holdsTo: 'mock',
  writes: false,
  needs: [],
  tags: ['fuzz'],
  async run(ctx: ContractContext) {
    const filters = fc.oneof(mutatedText(['ParentId eq 1', 'ParentId eq 1 and FolderId eq 2']), hostileText(40))
    await property(ctx, 'an attachments $filter', filters, (filter) => ctx.client.call('listAttachments', { query: { $filter: filter } }), mockFault)
  },
}

export const hostileTokens: Contract = {
  id: 'robustness.hostile-tokens',
  title: 'A data call with a random or malformed session token is refused',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  tags: ['fuzz'],
  statements: ['auth.session-token'],
  data: 'random printable texts (fast-check, fixed seed) as SessionToken on a read of one row',
  async run(ctx: ContractContext) {
    const mock = ctx.target.holdTo === 'mock'
    // An installation gets harmless texts only. A header value holds printable ASCII only (HTTP clients refuse the rest before sending).
    const tokens = (mock ? hostileText(60) : harmlessText(60)).map((text) => text.replace(/[^\u0020-\u007e]/g, '').trim()).filter((text) => text !== '')
    await property(
      ctx,
      'a SessionToken',
      tokens,
      (token) =>
        ctx
          .anonymous()
          .call(ctx.profile.itemsQuery, ctx.profile.itemsQuery === 'queryItems' ? { body: { query: '$top=1' }, token } : { query: { $top: 1 }, token }),
      (answer) => {
        if (answer.status >= 200 && answer.status < 300) return { fault: `${answer.status}: a made-up token was accepted` }
        if (mock) return mockFault(answer)
        return answer.status >= 500 ? { remark: `a server error (${answer.status}) instead of a refusal` } : undefined
      },
    )
  },
}

export const contracts = [hostileQueries, hostileAttachmentFilters, hostileTokens]
