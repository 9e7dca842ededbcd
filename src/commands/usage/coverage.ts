import { resolveProfile } from '../../../spec/profiles.ts'
import { listOperations, releaseDocument } from '../../document/reader.ts'
import { COMPARE_OPS, TEXT_FUNCTIONS } from '../../store/filter-ast.ts'
import type { Interaction, UsageFile } from '../../usage-file/file.ts'
import { operatorsOf } from './template.ts'

/**
 * Coverage of the API's document by a usage file: per operation of the releases the file was
 * recorded on, which of its variants, query options, filter operators and documented refusals
 * the client's tests used, with counts, and which they never did.
 */
export type ItemKind = 'operation' | 'variant' | 'query option' | 'filter operator' | 'refusal'

export interface CoverageItem {
  kind: ItemKind
  name: string
  /** Requests (or answers, for refusals) that used it; 0: never. */
  count: number
}

export interface OperationCoverage {
  operation: string
  summary: string
  /** Requests of this operation. */
  count: number
  items: CoverageItem[]
  /** Relation keys the requests named (not in the percentage: the document does not list them). */
  relationKeys: string[]
}

export interface Coverage {
  releases: string[]
  covered: number
  total: number
  percent: number
  byKind: Record<ItemKind, { covered: number; total: number }>
  operations: OperationCoverage[]
  used: string[]
  unused: string[]
}

const sum = (interactions: readonly Interaction[], when: (interaction: Interaction) => boolean) => interactions.filter(when).reduce((n, i) => n + i.count, 0)

const QUERY_OPTIONS: Array<[string, (i: Interaction) => boolean]> = [
  ['$top', (i) => i.request.query?.top !== undefined],
  ['$skip', (i) => i.request.query?.skip === true],
  ['$orderby asc', (i) => /\basc\b/.test(i.request.query?.orderBy ?? '')],
  ['$orderby desc', (i) => /\bdesc\b/.test(i.request.query?.orderBy ?? '')],
  ['$filter', (i) => i.request.query?.filter !== undefined],
  ['$inlinecount', (i) => i.request.query?.count === true],
]

const isDetail = (i: Interaction) => i.request.query?.relationKey !== undefined

/** The variants an operation has in a release, each with how to tell a request of it. */
function variants(operation: string, release: string): Array<[string, (i: Interaction) => boolean]> {
  const profile = resolveProfile(release)
  const rows = (table: 'master' | 'detail', action: 'create' | 'update') => (i: Interaction) =>
    (i.request.rows ?? []).some((kind) => (table === 'master') === (kind.table === null) && kind.action === action)
  switch (operation) {
    case 'queryItems':
    case 'queryItemsLegacy':
      return [
        ['rows', (i) => i.request.query?.count !== true],
        ['count', (i) => i.request.query?.count === true],
        ['master rows', (i) => !isDetail(i)],
        ...(profile.detailsInQueries ? [['detail rows', isDetail] as [string, (i: Interaction) => boolean]] : []),
      ]
    case 'saveItems':
      return [
        ['create master rows', rows('master', 'create')],
        ['update master rows', rows('master', 'update')],
        ...(profile.detailsInQueries
          ? ([
              ['create detail rows', rows('detail', 'create')],
              ['update detail rows', rows('detail', 'update')],
            ] as Array<[string, (i: Interaction) => boolean]>)
          : []),
      ]
    case 'deleteItems':
      return profile.legacyDeleteBody
        ? [['older body', (i) => i.request.delete?.form === 'older']]
        : [
            ['master rows', (i) => (i.request.delete?.tables ?? []).includes(null)],
            ['detail rows', (i) => (i.request.delete?.tables ?? []).some((table) => table !== null)],
          ]
    case 'listAttachments':
    case 'downloadAttachment':
      return [
        ['of master rows', (i) => !isDetail(i)],
        ['of detail rows', isDetail],
      ]
    default:
      return []
  }
}

export function coverageOf(file: UsageFile): Coverage {
  const releases = [...new Set(file.interactions.map((i) => i.release))].sort()
  const operations = new Map<string, OperationCoverage>()
  for (const release of releases) {
    for (const entry of listOperations(releaseDocument(release))) {
      const id = entry.operationId
      const interactions = file.interactions.filter((i) => i.operation === id && i.release === release)
      let coverage = operations.get(id)
      if (coverage === undefined) {
        coverage = {
          operation: id,
          summary: String(entry.operation.summary ?? id),
          count: 0,
          items: [{ kind: 'operation', name: id, count: 0 }],
          relationKeys: [],
        }
        operations.set(id, coverage)
      }
      const add = (kind: ItemKind, name: string, count: number) => {
        const item = coverage.items.find((it) => it.kind === kind && it.name === name)
        if (item === undefined) coverage.items.push({ kind, name, count })
        else item.count += count
      }
      const count = sum(interactions, () => true)
      coverage.count += count
      add('operation', id, count)
      for (const [name, when] of variants(id, release)) add('variant', name, sum(interactions, when))
      if (id === 'queryItems' || id === 'queryItemsLegacy') {
        for (const [name, when] of QUERY_OPTIONS) add('query option', name, sum(interactions, when))
        if (resolveProfile(release).detailsInQueries) add('query option', 'relationKey', sum(interactions, isDetail))
        for (const operator of [...COMPARE_OPS, ...TEXT_FUNCTIONS, 'and', 'or', 'not']) {
          add(
            'filter operator',
            operator,
            sum(interactions, (i) => operatorsOf(i.request.query?.filter ?? '').includes(operator)),
          )
        }
      }
      for (const status of Object.keys((entry.operation.responses as Record<string, unknown> | undefined) ?? {}).filter((s) => /^[45]\d\d$/.test(s))) {
        add(
          'refusal',
          status,
          interactions.reduce((n, i) => n + (i.answers[status]?.count ?? 0), 0),
        )
      }
      for (const i of interactions) {
        const key = i.request.query?.relationKey
        if (key !== undefined && !coverage.relationKeys.includes(key)) coverage.relationKeys.push(key)
      }
    }
  }
  const list = [...operations.values()]
  for (const operation of list) operation.relationKeys.sort()
  const items = list.flatMap((operation) => operation.items)
  const kinds: ItemKind[] = ['operation', 'variant', 'query option', 'filter operator', 'refusal']
  const byKind = Object.fromEntries(
    kinds.map((kind) => {
      const of = items.filter((item) => item.kind === kind)
      return [kind, { covered: of.filter((item) => item.count > 0).length, total: of.length }]
    }),
  ) as Coverage['byKind']
  const covered = items.filter((item) => item.count > 0).length
  return {
    releases,
    covered,
    total: items.length,
    percent: items.length === 0 ? 0 : Math.round((1000 * covered) / items.length) / 10,
    byKind,
    operations: list,
    used: list.filter((o) => o.count > 0).map((o) => o.operation),
    unused: list.filter((o) => o.count === 0).map((o) => o.operation),
  }
}

const KIND_TITLES: Record<ItemKind, string> = {
  operation: 'operations',
  variant: 'variants',
  'query option': 'query options',
  'filter operator': 'filter operators',
  refusal: 'refusals (documented statuses met)',
}

function lineOf(items: CoverageItem[], kind: ItemKind): string | undefined {
  const of = items.filter((item) => item.kind === kind)
  if (of.length === 0) return undefined
  const used = of.filter((item) => item.count > 0).map((item) => `${item.name} (${item.count})`)
  const never = of.filter((item) => item.count === 0).map((item) => item.name)
  return `${KIND_TITLES[kind]}: ${used.length > 0 ? `used ${used.join(', ')}` : 'none used'}${never.length > 0 ? `; never ${never.join(', ')}` : ''}`
}

/** The coverage for people: totals, then each operation, used ones first. */
export function coverageText(coverage: Coverage, file: string): string {
  const lines = [
    `${file}: ${coverage.percent}% of the document covered (${coverage.covered} of ${coverage.total} items), release ${coverage.releases.join(', ') || 'none recorded'}`,
  ]
  for (const [kind, { covered, total }] of Object.entries(coverage.byKind)) lines.push(`  ${KIND_TITLES[kind as ItemKind]}: ${covered} of ${total}`)
  lines.push('', 'used:')
  for (const operation of coverage.operations.filter((o) => o.count > 0)) {
    lines.push(
      `  ${operation.operation} (${operation.summary}): ${operation.count} request(s)${operation.relationKeys.length > 0 ? `, relation keys ${operation.relationKeys.join(', ')}` : ''}`,
    )
    for (const kind of ['variant', 'query option', 'filter operator', 'refusal'] as const) {
      const line = lineOf(operation.items, kind)
      if (line !== undefined) lines.push(`    ${line}`)
    }
  }
  lines.push(
    '',
    `never used: ${coverage.unused.length === 0 ? 'none' : coverage.unused.map((id) => `${id} (${coverage.operations.find((o) => o.operation === id)?.summary ?? id})`).join(', ')}`,
  )
  return `${lines.join('\n')}\n`
}

/** The coverage as Markdown, for a CI job summary (`>> $GITHUB_STEP_SUMMARY`). */
export function coverageMarkdown(coverage: Coverage, file: string): string {
  const cell = (items: CoverageItem[], kind: ItemKind) => {
    const of = items.filter((item) => item.kind === kind)
    if (of.length === 0) return ''
    return of.map((item) => (item.count > 0 ? `${item.name} ×${item.count}` : `~~${item.name}~~`)).join(', ')
  }
  const lines = [
    `### API coverage: ${coverage.percent}%`,
    '',
    `\`${file}\`, release ${coverage.releases.join(', ') || 'none recorded'}: ${coverage.covered} of ${coverage.total} items of the document used (struck through: never used).`,
    '',
    '| | covered |',
    '|---|---:|',
    ...Object.entries(coverage.byKind).map(([kind, { covered, total }]) => `| ${KIND_TITLES[kind as ItemKind]} | ${covered} / ${total} |`),
    '',
    '| operation | requests | variants | query options | filter operators | refusals |',
    '|---|---:|---|---|---|---|',
    ...coverage.operations.map(
      (o) =>
        `| ${o.count > 0 ? `\`${o.operation}\`` : `~~\`${o.operation}\`~~`} | ${o.count} | ${cell(o.items, 'variant')} | ${cell(o.items, 'query option')} | ${cell(o.items, 'filter operator')} | ${cell(o.items, 'refusal')} |`,
    ),
  ]
  if (coverage.unused.length > 0) lines.push('', `**Never used:** ${coverage.unused.map((id) => `\`${id}\``).join(', ')}`)
  return `${lines.join('\n')}\n`
}
