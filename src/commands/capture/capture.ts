import { ApiError, type Client } from '../../client/client.ts'
import { TransportError } from '../../wire/transport.ts'
import { bufferOf } from '../../bytes.ts'
import type { CapturedAttachment, Captured, CapturedStorage } from './build-fixture.ts'
import { inferFields, inferIdentityField, isIntegerField, linkNameScore, type InferredField, type ReadRow } from './infer.ts'

/** What to read, and how much. */
export interface CaptureOptions {
  credentials: { username: string; password: string }
  organization: string
  clientId: string
  legacyClientId: string
  workspaceId: string
  applicationId: string
  relationKeys: string[]
  /** Master rows to sample (the first by Id), each with its detail rows. */
  rows: number
  /**
   * The sampled rows' attachments: `none`; `records`, the lists with each file's size and media
   * type but not its bytes (the mock then answers placeholder bytes of that size); or `files`, the
   * bytes too, up to `attachmentLimit` bytes in all (a file past it is recorded as with `records`).
   */
  attachments: 'none' | 'records' | 'files'
  attachmentLimit: number
  /** The master storage's Identity field, instead of inferring it. */
  identityField: string | undefined
  /** Per relation key, the detail field holding the master's Id, instead of inferring it. */
  masterFields: Record<string, string>
  /** The master storage's Id (the API does not tell it). */
  storageId: string | undefined
  /** Requests in flight at once. */
  concurrency: number
  /** Progress, one line at a time. */
  progress: (line: string) => void
  now: () => Date
}

/** A capture that cannot go on: a relation key the application lacks, a field that cannot be told. */
export class CaptureError extends Error {
  override name = 'CaptureError'
}

/** Detail rows read per page while following a relation key. */
const PAGE = 500

/** Runs `work` over `items` with at most `limit` at once, results in the items' order. */
async function pooled<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index] as T)
    }
  })
  await Promise.all(lanes)
  return results
}

/**
 * Reads one application through the API, read-only (sign-in, Get Items, Count, the attachments
 * list and download, nothing else): the first `rows` master rows, every detail row of theirs in
 * each relation key, their attachments (records and sizes, files when asked), and what the rows
 * say about each storage's fields, Identity field and link to the master.
 */
export async function captureApplication(client: Client, options: CaptureOptions): Promise<Captured> {
  const say = options.progress
  await client.signIn(options.credentials)
  const masterCount = await client.count()
  const masters = await client.rows({ top: options.rows, orderBy: 'Id asc' })
  say(`master rows: read ${masters.length} of ${masterCount}`)
  const masterFields = inferFields(masters)
  const identityField = options.identityField ?? inferIdentityField(masters, masterFields)
  if (identityField === undefined)
    throw new CaptureError(
      "cannot tell the master storage's Identity field from the rows (no integer field set on every row with a different value on each); name it with --identity-field",
    )
  // The loader takes an Identity field only as a positive integer unique in the storage.
  if (
    options.identityField !== undefined &&
    inferIdentityField(
      masters,
      masterFields.filter((field) => field.name === identityField),
    ) !== identityField
  ) {
    throw new CaptureError(`--identity-field ${identityField}: the rows read do not hold it as an integer set on every row with a different value on each`)
  }
  const master: CapturedStorage = { fields: masterFields, identityField, storageId: options.storageId, rows: masters, count: masterCount }

  const masterIds = new Set(masters.map((row) => Number(row.Id)))
  const details: Captured['details'] = []
  for (const relationKey of options.relationKeys) {
    const detail = await captureDetail(client, relationKey, masterIds, options)
    if (detail !== undefined) details.push(detail)
  }

  const attachments = options.attachments === 'none' ? [] : await captureAttachments(client, master, details, options)
  return {
    organization: options.organization,
    clientId: options.clientId,
    legacyClientId: options.legacyClientId,
    username: options.credentials.username,
    workspaceId: options.workspaceId,
    applicationId: options.applicationId,
    master,
    details,
    attachments,
    capturedAt: options.now().toISOString(),
  }
}

async function captureDetail(
  client: Client,
  relationKey: string,
  masterIds: ReadonlySet<number>,
  options: CaptureOptions,
): Promise<Captured['details'][number] | undefined> {
  let count: number
  try {
    count = await client.count({ relationKey })
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) {
      throw new CaptureError(`relation key ${relationKey}: the application has no such detail table (${error.message})`)
    }
    throw error
  }
  // A first page tells the fields; the link to the master is then followed for the sampled masters only.
  const probe = await client.rows({ relationKey, top: PAGE, orderBy: 'Id asc' })
  if (probe.length === 0 || masterIds.size === 0) {
    options.progress(`${relationKey}: no rows to learn its fields from; left out`)
    return undefined
  }
  const probeFields = inferFields(probe)
  const identityField = inferIdentityField(probe, probeFields)
  if (identityField === undefined) throw new CaptureError(`relation key ${relationKey}: cannot tell its Identity field from the rows`)
  const given = options.masterFields[relationKey]
  if (given !== undefined && !probeFields.some((field) => field.name === given && isIntegerField(field))) {
    throw new CaptureError(`--master-field ${relationKey}=${given}: the detail rows read do not hold it as an integer (the master row's Id)`)
  }
  const masterField =
    given ??
    (await findMasterField(
      client,
      probe,
      probeFields.filter((field) => field.name !== identityField),
    ))
  if (masterField === undefined)
    throw new CaptureError(`relation key ${relationKey}: cannot tell which field holds the master row's Id; name it with --master-field ${relationKey}=FIELD`)
  const low = Math.min(...masterIds)
  const high = Math.max(...masterIds)
  const rows: ReadRow[] = []
  for (let skip = 0; ; skip += PAGE) {
    const page = await client.rows({ relationKey, filter: `${masterField} ge ${low} and ${masterField} le ${high}`, orderBy: 'Id asc', top: PAGE, skip })
    for (const row of page) if (masterIds.has(Number(row[masterField]))) rows.push(row)
    if (page.length < PAGE) break
  }
  options.progress(
    `${relationKey}: read ${rows.length} detail rows of the sampled masters (of ${count}); master link ${masterField}, Identity field ${identityField}`,
  )
  return { relationKey, masterField, identityField, fields: inferFields(rows.length > 0 ? rows : probe), storageId: undefined, rows, count }
}

/**
 * The detail field whose values are master Ids: among the integer fields, best named first, the
 * first whose values in the first page all name existing master rows (Counts on `Id eq` filters,
 * forty values at a time, ask).
 */
async function findMasterField(client: Client, probe: readonly ReadRow[], fields: readonly InferredField[]): Promise<string | undefined> {
  const candidates = fields.filter(isIntegerField).sort((a, b) => linkNameScore(b.name) - linkNameScore(a.name))
  for (const field of candidates) {
    const values = [...new Set(probe.map((row) => row[field.name]).filter((value): value is number => typeof value === 'number'))]
    if (values.length === 0) continue
    let all = true
    for (let i = 0; i < values.length && all; i += 40) {
      const chunk = values.slice(i, i + 40)
      all = (await client.count({ filter: chunk.map((value) => `Id eq ${value}`).join(' or ') })) === chunk.length
    }
    if (all) return field.name
  }
  return undefined
}

const hasMarker = (row: ReadRow) => row.CT_ATTACHMENTS !== null && row.CT_ATTACHMENTS !== undefined && row.CT_ATTACHMENTS !== 0

/** Rows whose attachment marker says they have some; every row when the installation leaves the marker empty on all. */
function withAttachments(rows: readonly ReadRow[]): ReadRow[] {
  return rows.some((row) => row.CT_ATTACHMENTS !== null && row.CT_ATTACHMENTS !== undefined) ? rows.filter(hasMarker) : [...rows]
}

async function captureAttachments(
  client: Client,
  master: CapturedStorage,
  details: Captured['details'],
  options: CaptureOptions,
): Promise<CapturedAttachment[]> {
  const found: CapturedAttachment[] = []
  const listRow = async (relationKey: string | null, parentId: number, folderId?: number): Promise<void> => {
    const records = await client.attachments(parentId, { ...(folderId === undefined ? {} : { folderId }), ...(relationKey === null ? {} : { relationKey }) })
    for (const record of records as unknown as Array<Record<string, unknown>>) {
      // A folder's own listing holds it too on some installations; each record is taken once.
      if (found.some((known) => known.record.Id === record.Id && known.relationKey === relationKey)) continue
      found.push({ relationKey, record, content: undefined, size: undefined, mediaType: undefined })
      if (record.IsFolder === true) await listRow(relationKey, parentId, Number(record.Id))
    }
  }
  const targets = [
    ...withAttachments(master.rows).map((row) => ({ relationKey: null as string | null, id: Number(row.Id) })),
    // Detail rows are many: only those whose marker says they have attachments.
    ...details.flatMap((detail) => detail.rows.filter(hasMarker).map((row) => ({ relationKey: detail.relationKey as string | null, id: Number(row.Id) }))),
  ]
  await pooled(targets, options.concurrency, (target) => listRow(target.relationKey, target.id))
  const files = found.filter((attachment) => attachment.record.IsFolder !== true)
  // Files in list order while they fit in the limit: the transport stops reading one that would pass
  // it (it is left to the size probe below), and smaller ones after it still come.
  let downloaded = 0
  for (const attachment of options.attachments === 'files' ? files : []) {
    if (downloaded >= options.attachmentLimit) continue
    try {
      const file = await client.download([Number(attachment.record.Id)], attachment.relationKey ?? undefined, options.attachmentLimit - downloaded)
      downloaded += file.bytes.length
      Object.assign(attachment, { content: bufferOf(file.bytes), size: file.bytes.length, mediaType: file.mediaType })
    } catch (error) {
      if (!(error instanceof TransportError && error.code === 'TOO_LARGE')) throw error
    }
  }
  // The list tells no size: the download's headers do (its body is not read when they give its
  // length), so the mock can answer placeholder bytes of the same size.
  await pooled(
    files.filter((attachment) => attachment.content === undefined),
    options.concurrency,
    async (attachment) => {
      Object.assign(attachment, await client.downloadSize(Number(attachment.record.Id), attachment.relationKey ?? undefined))
    },
  )
  const kept = files.filter((file) => file.content !== undefined).length
  const total = files.reduce((sum, file) => sum + (file.size ?? 0), 0)
  options.progress(
    `attachments: ${found.length - files.length} folder(s), ${files.length} file(s) of ${total} bytes; ${kept} downloaded (${downloaded} bytes)` +
      (kept < files.length
        ? `, ${files.length - kept} recorded by size only (the mock answers placeholder bytes${options.attachments === 'files' ? '' : '; --attachments downloads them'})`
        : ''),
  )
  const differ = markersDiffering(master, details, files)
  if (differ > 0)
    options.progress(`attachments: ${differ} row(s) whose CT_ATTACHMENTS is not the number of files listed for them; the mock of the capture counts the files`)
  return found
}

/** Sampled rows whose attachment marker is a number other than the files listed for them (the mock's CT_ATTACHMENTS counts files). */
function markersDiffering(master: CapturedStorage, details: Captured['details'], files: readonly CapturedAttachment[]): number {
  const key = (relationKey: string | null, parentId: unknown) => `${relationKey ?? ''}\u0000${String(parentId)}`
  const counts = new Map<string, number>()
  for (const file of files) counts.set(key(file.relationKey, file.record.ParentId), (counts.get(key(file.relationKey, file.record.ParentId)) ?? 0) + 1)
  const rows = [
    ...master.rows.map((row) => ({ relationKey: null as string | null, row })),
    ...details.flatMap((detail) => detail.rows.map((row) => ({ relationKey: detail.relationKey as string | null, row }))),
  ]
  return rows.filter(({ relationKey, row }) => typeof row.CT_ATTACHMENTS === 'number' && row.CT_ATTACHMENTS !== (counts.get(key(relationKey, row.Id)) ?? 0))
    .length
}
