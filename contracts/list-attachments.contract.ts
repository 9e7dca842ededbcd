/** Get Attachments List: the records of a row's attachments. */
import type { AttachmentRecord } from '../src/client/client.ts'
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
  async run(ctx: ContractContext) {
    const { records, parentId } = await holderAttachments(ctx)
    ctx.require(records.length > 0, { expected: 'at least one record for a row whose CT_ATTACHMENTS is above 0', received: '[]' })
    for (const record of records) {
      const ok = record.ParentId === parentId && typeof record.Name === 'string' && typeof record.IsFolder === 'boolean' && Number.isSafeInteger(record.Id)
      if (!ctx.check(ok, { expected: `records of row ${parentId} with an integer Id, a Name and IsFolder`, received: ctx.show(record) })) break
    }
  },
}

export const contracts = [records]
