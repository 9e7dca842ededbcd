/** Get Attachments List: the records of a row's attachments. */
import { RANGES } from '../spec/versions.ts'
import { isDateTimeNumber } from '../src/wire/type-forms.ts'
import { ApiError, type AttachmentRecord, type ReadRow } from '../src/client/client.ts'
import { shown, UNKNOWN_RELATION_KEY } from './support.ts'
import type { Contract, ContractContext } from './types.ts'

/** The attachments of the row the facts found with some, or a skip when no row has any. */
export async function holderAttachments(ctx: ContractContext): Promise<{ records: AttachmentRecord[]; relationKey: string | null; parentId: number }> {
  const holder = await ctx.facts.attachmentHolder(ctx.client)
  if ('none' in holder) ctx.skip(holder.none)
  const records = await ctx.client.attachments(holder.row.Id, holder.relationKey === null ? {} : { relationKey: holder.relationKey })
  return { records, relationKey: holder.relationKey, parentId: holder.row.Id }
}

export const records: Contract = {
  id: 'attachments.records',
  title: 'The attachments list of a row with attachments answers its records (Id, ParentId, FolderId, IsFolder, Name, TypeImage, ...)',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'drop-attachment-name',
  statements: ['attachments.list', 'resources.attachment-record'],
  data: 'the records of the first row with attachments (CT_ATTACHMENTS above 0), each with its ParentId, Name, IsFolder',
  async run(ctx: ContractContext) {
    const { records, parentId } = await holderAttachments(ctx)
    ctx.require(records.length > 0, { expected: 'at least one record for a row whose CT_ATTACHMENTS is above 0', received: '[]' })
    for (const record of records) {
      const ok = record.ParentId === parentId && typeof record.Name === 'string' && typeof record.IsFolder === 'boolean' && Number.isSafeInteger(record.Id)
      if (!ctx.check(ok, { expected: `records of row ${parentId} with an integer Id, a Name and IsFolder`, received: ctx.show(record) })) break
    }
  },
}

/** The first folder among a row's records and the records inside it, or a skip. */
export async function folderAndContents(
  ctx: ContractContext,
): Promise<{ folder: AttachmentRecord; inside: AttachmentRecord[]; top: AttachmentRecord[]; relationKey: string | null; parentId: number }> {
  const { records, relationKey, parentId } = await holderAttachments(ctx)
  const folder = records.find((record) => record.IsFolder)
  if (folder === undefined) ctx.skip('the row with attachments has no folder')
  const inside = await ctx.client.attachments(parentId, { folderId: folder.Id, ...(relationKey === null ? {} : { relationKey }) })
  return { folder, inside, top: records, relationKey, parentId }
}

export const folderContents: Contract = {
  id: 'attachments.folder-contents',
  title: "The attachments list with FolderId eq <folder> answers the records inside that folder, not the row's top level",
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'ignore-folder-filter',
  statements: ['attachments.folder'],
  data: 'the first folder of the row with attachments; its records must name it as FolderId, and none may be a top-level record',
  async run(ctx: ContractContext) {
    const { folder, inside, top } = await folderAndContents(ctx)
    if (inside.length === 0) return ctx.note(`folder ${folder.Id} is empty, so the FolderId condition was not told apart from none`)
    const topIds = new Set(top.map((record) => record.Id))
    const wrong = inside.filter((record) => record.FolderId !== folder.Id || topIds.has(record.Id))
    ctx.check(wrong.length === 0, { expected: `only records with FolderId ${folder.Id}`, received: ctx.show(wrong.slice(0, 3)) })
  },
}

/** The description's form of the attachment record's DT_CREATION: yyyymmddhhmmss as a number, a real moment. */
export function isCompactTime(value: unknown): boolean {
  return typeof value === 'number' && isDateTimeNumber(value)
}

export const recordDates: Contract = {
  id: 'attachments.record-dates',
  title: 'Attachment records carry DT_CREATION as a number yyyymmddhhmmss (or null) and DT_LAST_UPDATE as a number or null',
  severity: 'medium',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'attachment-date-iso',
  statements: ['resources.attachment-record'],
  data: 'every record at the top level of the row with attachments and inside its first folder',
  async run(ctx: ContractContext) {
    const { records, relationKey, parentId } = await holderAttachments(ctx)
    const folder = records.find((record) => record.IsFolder)
    const all = [
      ...records,
      ...(folder === undefined ? [] : await ctx.client.attachments(parentId, { folderId: folder.Id, ...(relationKey === null ? {} : { relationKey }) })),
    ]
    for (const record of all) {
      const created = (record as { DT_CREATION?: unknown }).DT_CREATION
      const updated = (record as { DT_LAST_UPDATE?: unknown }).DT_LAST_UPDATE
      if (
        !ctx.check(created === null || isCompactTime(created), {
          expected: 'DT_CREATION as a number yyyymmddhhmmss or null',
          received: `record ${record.Id}: ${shown(created)}`,
        })
      )
        break
      if (
        !ctx.check(updated === null || updated === undefined || typeof updated === 'number', {
          expected: 'DT_LAST_UPDATE as a number or null',
          received: `record ${record.Id}: ${shown(updated)}`,
        })
      )
        break
    }
  },
}

/** The first detail row with attachments, or a skip. */
async function detailHolder(ctx: ContractContext): Promise<ReadRow> {
  const relationKey = ctx.target.relationKey as string
  let row: ReadRow | undefined
  try {
    ;[row] = await ctx.client.rows({ top: 1, orderBy: 'CT_ATTACHMENTS desc', relationKey })
  } catch (error) {
    if (error instanceof ApiError && error.status < 500)
      ctx.skip(`the installation refused to order rows by CT_ATTACHMENTS (${error.status}), so no row with attachments was found`)
    throw error
  }
  if (row === undefined || !(Number(row.CT_ATTACHMENTS) > 0)) ctx.skip(`no row of the detail table ${relationKey} has attachments`)
  return row
}

export const detailRecords: Contract = {
  id: 'attachments.detail-rows',
  title: "The attachments list with relationKey answers the detail row's records, not those of the master row with the same Id; its files download with rk",
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: ['relation-key'],
  releases: RANGES.current,
  deviation: 'attachments-ignore-relation-key',
  statements: ['attachments.relation-key', 'download.rk'],
  data: 'the detail row with most attachments; its list beside the list of the master row with the same Id (a different row), and its first file downloaded with rk',
  async run(ctx: ContractContext) {
    const relationKey = ctx.target.relationKey as string
    const row = await detailHolder(ctx)
    const records = await ctx.client.attachments(row.Id, { relationKey })
    ctx.require(records.length > 0, { expected: `records for detail row ${row.Id}, whose CT_ATTACHMENTS is ${String(row.CT_ATTACHMENTS)}`, received: '[]' })
    const masters = await ctx.client.attachments(row.Id)
    const ids = (list: AttachmentRecord[]) => JSON.stringify(list.map((record) => record.Id).sort((a, b) => a - b))
    ctx.check(masters.length === 0 || ids(masters) !== ids(records), {
      expected: `the records of detail row ${row.Id}, not those of master row ${row.Id}`,
      received: `the same records (Id ${ids(records)})`,
    })
    const file = records.find((record) => !record.IsFolder)
    if (file === undefined) return ctx.note(`detail row ${row.Id} has no file at its top level, so no download with rk was tried`)
    const download = await ctx.client.download([file.Id], relationKey)
    ctx.check(download.bytes.length > 0 && (file.TypeImage === '' || download.mediaType === file.TypeImage), {
      expected: `the file ${file.Name} (${file.TypeImage})`,
      received: `${download.mediaType}, ${download.bytes.length} bytes`,
    })
  },
}

export const unknownRelationKeyNoRecords: Contract = {
  id: 'attachments.unknown-relation-key-no-records',
  title: 'The attachments list with a relationKey the application does not have answers none of the records of the row with attachments',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  releases: RANGES.current,
  deviation: 'attachments-unknown-relation-key',
  statements: ['attachments.relation-key', 'service.identifiers'],
  data: 'the records of the first row with attachments, then the list for its Id with a relationKey no application has; no status is required (the description states none), only that none of those records (same Id and Name) come back',
  async run(ctx: ContractContext) {
    const { records, parentId } = await holderAttachments(ctx)
    ctx.require(records.length > 0, { expected: 'at least one record for a row whose CT_ATTACHMENTS is above 0', received: '[]' })
    const answer = await ctx.client.call('listAttachments', { query: { $filter: `ParentId eq ${parentId}`, relationKey: UNKNOWN_RELATION_KEY } })
    const leaked = Array.isArray(answer.body)
      ? (answer.body as AttachmentRecord[]).filter((record) => records.some((known) => known.Id === record.Id && known.Name === record.Name))
      : []
    ctx.check(leaked.length === 0, {
      expected: `none of row ${parentId}'s records for relationKey ${UNKNOWN_RELATION_KEY}`,
      received: `${answer.status} with records ${leaked.map((record) => String(record.Id)).join(', ')}`,
    })
  },
}

export const contracts = [records, folderContents, recordDates, detailRecords, unknownRelationKeyNoRecords]
