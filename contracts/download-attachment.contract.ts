/** Download Attachment: a file as itself with its media type, a folder as a zip. */
import { RANGES } from '../spec/versions.ts'
import { bufferOf } from '../src/bytes.ts'
import { folderAndContents, holderAttachments } from './list-attachments.contract.ts'
import { unzip } from './zip.ts'
import { shown, UNKNOWN_RELATION_KEY } from './support.ts'
import type { Contract, ContractContext } from './types.ts'

export const mediaType: Contract = {
  id: 'download.media-type',
  title: 'A file downloads with the media type its record names and Content-Disposition: attachment',
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'wrong-media-type',
  statements: ['download.file', 'service.json'],
  data: "the first file at the top level of the row with attachments: its media type beside the record's TypeImage, Content-Disposition and bytes",
  async run(ctx: ContractContext) {
    const { records, relationKey } = await holderAttachments(ctx)
    const file = records.find((record) => !record.IsFolder)
    if (file === undefined) ctx.skip('the row with attachments has no file at its top level')
    const download = await ctx.client.download([file.Id], relationKey ?? undefined)
    if (file.TypeImage !== '') ctx.check(download.mediaType === file.TypeImage, { expected: `Content-Type ${file.TypeImage}`, received: download.mediaType })
    ctx.check(/^attachment\b/i.test(download.disposition), { expected: 'Content-Disposition: attachment; filename=...', received: shown(download.disposition) })
    ctx.check(download.bytes.length > 0, { expected: "the file's bytes", received: 'an empty body' })
  },
}

export const folderZip: Contract = {
  id: 'download.folder-zip',
  title: 'A folder downloads as a zip archive',
  severity: 'medium',
  holdsTo: 'description',
  writes: false,
  needs: [],
  statements: ['download.folder-zip'],
  data: 'the first folder of the row with attachments: the download starts with a zip signature',
  async run(ctx: ContractContext) {
    const { records, relationKey } = await holderAttachments(ctx)
    const folder = records.find((record) => record.IsFolder)
    if (folder === undefined) ctx.skip('the row with attachments has no folder')
    const download = await ctx.client.download([folder.Id], relationKey ?? undefined)
    // Every zip starts with a local file header, or the end record when empty.
    const signature = bufferOf(download.bytes.subarray(0, 4)).toString('hex')
    ctx.check(signature === '504b0304' || signature === '504b0506', {
      expected: 'a zip archive (PK signature)',
      received: `${download.mediaType}, bytes ${signature}`,
    })
  },
}

/** The file name of a Content-Disposition header: `filename*` (RFC 5987) first, then `filename`, quoted or not. */
export function dispositionFileName(header: string): string | undefined {
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header)
  if (extended?.[2] !== undefined) {
    try {
      return decodeURIComponent(extended[2].trim())
    } catch {
      return extended[2].trim()
    }
  }
  const plain = /filename\s*=\s*("((?:[^"\\]|\\.)*)"|[^;]+)/i.exec(header)
  if (plain === null) return undefined
  return plain[2] !== undefined ? plain[2].replace(/\\(.)/g, '$1') : (plain[1] ?? '').trim()
}

export const fileName: Contract = {
  id: 'download.file-name',
  title: "A file downloads with Content-Disposition: attachment; filename=<the record's Name>",
  severity: 'medium',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'download-generic-name',
  statements: ['download.file'],
  data: "the first file at the top level of the row with attachments; the header's file name beside the record's Name",
  async run(ctx: ContractContext) {
    const { records, relationKey } = await holderAttachments(ctx)
    const file = records.find((record) => !record.IsFolder)
    if (file === undefined) ctx.skip('the row with attachments has no file at its top level')
    const download = await ctx.client.download([file.Id], relationKey ?? undefined)
    const name = dispositionFileName(download.disposition)
    ctx.check(name === file.Name, { expected: `filename=${file.Name}`, received: shown(download.disposition) })
  },
}

export const folderZipEntries: Contract = {
  id: 'download.folder-zip-entries',
  title: "A folder downloads as a zip of the folder's attachments: an entry for each file in it, with the bytes the file downloads with",
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  deviation: 'empty-folder-zip',
  statements: ['download.folder-zip'],
  data: 'the first folder of the row with attachments, listed with FolderId; each file in it (up to 5) downloaded alone and compared with the zip entry of the same name',
  async run(ctx: ContractContext) {
    const { folder, inside, relationKey } = await folderAndContents(ctx)
    const files = inside.filter((record) => !record.IsFolder)
    if (files.length === 0) ctx.skip(`folder ${folder.Id} holds no file at its top level`)
    const download = await ctx.client.download([folder.Id], relationKey ?? undefined)
    let entries
    try {
      entries = await unzip(download.bytes)
    } catch (error) {
      return void ctx.check(false, { expected: 'a zip archive', received: `${download.mediaType}: ${(error as Error).message}` })
    }
    const base = (name: string) => name.split('/').pop() ?? name
    for (const file of files.slice(0, 5)) {
      const entry = entries.find((e) => base(e.name) === file.Name)
      if (entry === undefined) {
        ctx.check(false, { expected: `an entry ${file.Name} in the zip of folder ${folder.Name}`, received: `entries ${shown(entries.map((e) => e.name))}` })
        continue
      }
      const alone = await ctx.client.download([file.Id], relationKey ?? undefined)
      ctx.check(bufferOf(alone.bytes).equals(entry.data), {
        expected: `the entry ${entry.name} to hold the ${alone.bytes.length} bytes ${file.Name} downloads with`,
        received: `${entry.data.length} other bytes`,
      })
    }
  },
}

export const unknownRelationKeyNoFile: Contract = {
  id: 'download.unknown-relation-key-no-file',
  title: "A download with an rk the application does not have does not answer the master row's file with that Id",
  severity: 'high',
  holdsTo: 'description',
  writes: false,
  needs: [],
  releases: RANGES.current,
  deviation: 'download-unknown-relation-key',
  statements: ['download.rk', 'service.identifiers'],
  data: 'the first file at the top level of the master row with attachments, downloaded by its Id with an rk no application has; no status is required (the description states none), only that the file (its name in Content-Disposition) does not come back',
  async run(ctx: ContractContext) {
    const { records, relationKey } = await holderAttachments(ctx)
    if (relationKey !== null) ctx.skip("the row with attachments is a detail row, so no master row's file was asked for with a wrong rk")
    const file = records.find((record) => !record.IsFolder)
    if (file === undefined) ctx.skip('the row with attachments has no file at its top level')
    const answer = await ctx.client.call('downloadAttachment', { body: { ids: [file.Id], rk: UNKNOWN_RELATION_KEY } })
    const disposition = answer.headers['content-disposition'] ?? ''
    ctx.check(!(answer.status === 200 && disposition.includes(file.Name)), {
      expected: `not the file ${file.Name} for rk ${UNKNOWN_RELATION_KEY}`,
      received: `${answer.status}, ${shown(disposition)}`,
    })
  },
}

export const contracts = [mediaType, folderZip, fileName, folderZipEntries, unknownRelationKeyNoFile]
