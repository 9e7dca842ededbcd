/** Download Attachment: a file as itself with its media type, a folder as a zip. */
import { bufferOf } from '../src/bytes.ts'
import { holderAttachments } from './list-attachments.contract.ts'
import { shown } from './support.ts'
import type { Contract, ContractContext } from './types.ts'

export const mediaType: Contract = {
  id: 'download.media-type',
  title: 'A file downloads with the media type its record names and Content-Disposition: attachment',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'wrong-media-type',
  async run(ctx: ContractContext) {
    const { records, relationKey } = await holderAttachments(ctx)
    const file = records.find((record) => !record.IsFolder)
    if (file === undefined) ctx.skip('the row with attachments has no file at its top level')
    const download = await ctx.client.download([file.Id], relationKey ?? undefined)
    if (file.TypeImage !== '') ctx.check(download.mediaType === file.TypeImage, { expected: `Content-Type ${file.TypeImage}`, received: download.mediaType })
    ctx.check(/^attachment\b/i.test(download.disposition), { expected: 'Content-Disposition: attachment; filename=...', received: shown(download.disposition) })
    ctx.check(download.bytes.length > 0, { expected: 'the file\'s bytes', received: 'an empty body' })
  },
}

export const folderZip: Contract = {
  id: 'download.folder-zip',
  title: 'A folder downloads as a zip archive',
  severity: 'medium',
  holdsTo: 'description',
  writes: false,
  needs: [],
  async run(ctx: ContractContext) {
    const { records, relationKey } = await holderAttachments(ctx)
    const folder = records.find((record) => record.IsFolder)
    if (folder === undefined) ctx.skip('the row with attachments has no folder')
    const download = await ctx.client.download([folder.Id], relationKey ?? undefined)
    // Every zip starts with a local file header, or the end record when empty.
    const signature = bufferOf(download.bytes.subarray(0, 4)).toString('hex')
    ctx.check(signature === '504b0304' || signature === '504b0506', { expected: 'a zip archive (PK signature)', received: `${download.mediaType}, bytes ${signature}` })
  },
}

export const contracts = [mediaType, folderZip]
