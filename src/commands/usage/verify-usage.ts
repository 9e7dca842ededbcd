import { runContracts, type RunOptions, type RunReport } from '../../../contracts/runner.ts'
import type { ContractResult, Target } from '../../../contracts/types.ts'
import { summaryLines } from '../../../contracts/summary.ts'
import type { UsageFile } from '../../usage-file/file.ts'
import { causeKey, groupByCause, groupLines } from './causes.ts'
import { usageContracts } from './replay.ts'

export interface UsageRunOptions extends Pick<RunOptions, 'concurrency' | 'only' | 'skip' | 'signal' | 'onSecret' | 'onCleanup'> {
  say(text: string): void
  /** Passes and skips are printed on a terminal; failures and notes always. */
  terminal: boolean
}

/** What the client relied on, as a failure says it (its text), with the interaction's title. */
interface Failed {
  title: string
  what: string
}

const whatFailed = (failure: ContractResult['failures'][number]) =>
  failure.expected.startsWith('what the client relied on') ? failure.received : `expected ${failure.expected}; received ${failure.received}`

/** The lines of one replayed interaction as it ends, in the client's terms: notes always, passes and skips on a terminal; failures wait (see failureLines). */
function lines(result: ContractResult, terminal: boolean): string[] {
  const { title } = result.contract
  const notes = (result.notes ?? []).map((note) => `note ${title}: ${note}`)
  if (result.outcome === 'failed' || !terminal) return notes
  return [result.outcome === 'passed' ? `  ok ${title}` : `skip ${title}: ${result.reason ?? ''}`, ...notes]
}

/**
 * The failures of the run, one group per cause (src/commands/usage/causes.ts, as `upgrade` groups its
 * findings): the first interaction's line as it reads alone, then how many more meet the same
 * cause. The 23 query shapes a release without the GET form refuses are one group, not 23 lines.
 */
export function failureLines(results: readonly ContractResult[]): string[] {
  const failed: Failed[] = results
    .filter((r) => r.outcome === 'failed')
    .flatMap((r) => r.failures.map((failure) => ({ title: r.contract.title, what: whatFailed(failure) })))
  return groupByCause(failed, (item) => causeKey(item.what)).flatMap(({ items }) => {
    const [first, ...others] = items as [Failed, ...Failed[]]
    return groupLines(`FAIL ${first.title}: ${first.what}`, [...new Set(others.map((other) => other.title).filter((title) => title !== first.title))])
  })
}

/**
 * `verify --usage FILE`: every interaction of the usage file at `path` (read and checked by
 * readUsageFile), replayed against the target as a contract of its own (see replay.ts).
 */
export async function verifyUsage(path: string, file: UsageFile, target: Target, options: UsageRunOptions): Promise<RunReport> {
  const recordedKeys = [...new Set(file.interactions.map((i) => i.request.query?.relationKey).filter((key): key is string => key !== undefined))]
  // The fixture's relation key (OrderLines) may be a GUID on the installation: --relation-key names it, when the file has one.
  const given = target.relationKey
  const relationKey = (recorded: string) => (given !== undefined && recordedKeys.length === 1 ? given : recorded)
  const contracts = usageContracts(file.interactions, { relationKey })
  options.say(
    `${file.interactions.length} interaction(s) recorded in ${path}${given !== undefined && recordedKeys.length === 1 && recordedKeys[0] !== given ? ` (relation key ${recordedKeys[0]} read as ${given})` : ''}`,
  )
  const { say, terminal, ...run } = options
  const report = await runContracts(contracts, target, { ...run, onResult: (result) => lines(result, terminal).forEach(say) })
  for (const line of failureLines(report.results)) say(line)
  for (const line of summaryLines(report)) say(line.replace(/ contracts in /, ' interactions in '))
  const failed = report.results.filter((r) => r.outcome === 'failed').length
  say(
    failed === 0
      ? 'the installation serves every replayed interaction as the client saw it'
      : `the installation would break the client: ${failed} interaction(s) answered otherwise than the client relies on`,
  )
  return report
}
