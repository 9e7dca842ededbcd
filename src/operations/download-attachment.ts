import { Readable } from 'node:stream'
import yazl from 'yazl'
import { ProblemError } from '../errors.ts'
import { bufferOf } from '../bytes.ts'
import type { ApplicationDef, AttachmentDef } from '../store/model/types.ts'
import type { Store } from '../store/store.ts'
import { applicationOf } from '../http/context.ts'
import { warnOrRefuse } from '../http/warn.ts'
import type { OperationHandler } from '../wire/operations.ts'
import { contentDisposition } from './content-disposition.ts'

/** What a placeholder payload is made of: full stops (the fixture schema's `placeholderBytes`). */
const PLACEHOLDER = Buffer.alloc(64 * 1024, 0x2e)

function* placeholder(size: number): Generator<Buffer> {
  for (let left = size; left > 0; left -= PLACEHOLDER.length) yield PLACEHOLDER.subarray(0, Math.min(left, PLACEHOLDER.length))
}

/**
 * A file's payload and its size: the stored bytes (a view, not a copy), or, for a file recorded
 * without them, placeholder bytes of the recorded size, made while they are sent so a large
 * recorded file costs no memory.
 */
function payloadOf(attachment: AttachmentDef): { size: number; body: Buffer | Readable } {
  const content = attachment.content
  if (content === undefined && attachment.placeholderBytes !== undefined)
    return { size: attachment.placeholderBytes, body: Readable.from(placeholder(attachment.placeholderBytes)) }
  const bytes = bufferOf(content ?? new Uint8Array())
  return { size: bytes.length, body: bytes }
}

/**
 * Finds each id under the relation key the request names; an id that exists under the other kind
 * of row (master vs. detail) gets a 400 that says so, an id that exists nowhere a 404.
 */
function findAll(store: Store, application: ApplicationDef, ids: readonly number[], relationKey: string | null): AttachmentDef[] {
  return ids.map((id) => {
    const found = store.getAttachment(application.id, relationKey, id)
    if (found !== undefined) return found
    const keys = [null, ...application.details.map((d) => d.relationKey)].filter((key) => key !== relationKey)
    const elsewhere = keys.find((key) => store.getAttachment(application.id, key, id) !== undefined)
    if (elsewhere === undefined) throw new ProblemError('UNKNOWN_ATTACHMENT', `No attachment ${id} in application ${application.id}.`)
    throw new ProblemError(
      'BAD_ATTACHMENT_REQUEST',
      elsewhere === null
        ? `Attachment ${id} belongs to a master row: send rk empty or leave it out.`
        : `Attachment ${id} belongs to a detail row: send rk "${elsewhere}".`,
    )
  })
}

/**
 * An archive entry name from attachment names (folders, then the file): each name one path segment
 * that stays inside the archive. Names are free text (an upload's `folder=..`, a fixture's
 * `../x.txt`), and an entry named `../x.txt` would be written outside the folder it is unpacked
 * into (zip slip), so yazl refuses it: `/` and `\` become `_`, a name of dots only (`.`, `..`) or
 * an empty one becomes as many `_` (at least one), and a leading drive letter's `:` becomes `_`.
 */
function entryName(names: readonly string[]): string {
  return names
    .map((name) => {
      const flat = name.replace(/[\\/]/g, '_').replace(/^([A-Za-z]):/, '$1_')
      return /^\.*$/.test(flat) ? flat.replaceAll('.', '_') || '_' : flat
    })
    .join('/')
}

/**
 * One file streams as itself; a folder, or several ids, stream as a .zip. The archive is
 * deterministic (listing order, entry times from the attachments, UTF-8 names, stored without
 * compression) so users can compare it byte for byte.
 */
export const downloadAttachment: OperationHandler<'downloadAttachment'> = async (request, reply) => {
  const application = applicationOf(request)
  const body = request.body
  if (body.rk === null) warnOrRefuse(request, 'NULL_OPTIONAL_MEMBER', "rk was null; the attachments were looked up among the master rows'.")
  const relationKey = body.rk === undefined || body.rk === null || body.rk === '' ? null : body.rk
  if (relationKey !== null && !application.details.some((d) => d.relationKey === relationKey)) {
    throw new ProblemError('UNKNOWN_RELATION_KEY', `Application ${application.id} has no relation key "${relationKey}".`)
  }
  const store = request.server.store
  const found = findAll(store, application, body.ids, relationKey)
  const single = found.length === 1 ? found[0] : undefined
  if (single !== undefined && !single.isFolder) {
    const { size, body: payload } = payloadOf(single)
    return reply.header('content-disposition', contentDisposition(single.name)).type(single.mediaType).header('content-length', size).send(payload)
  }
  // A single folder's entries are its contents; several ids put a folder's files under its name.
  const entries = found.flatMap((attachment) =>
    attachment.isFolder
      ? store.folderFiles(attachment).map(({ path, attachment: file }) => ({ path: single === undefined ? [attachment.name, ...path] : path, file }))
      : [{ path: [attachment.name], file: attachment }],
  )
  const zip = new yazl.ZipFile()
  for (const { path, file } of entries) {
    const { size, body: payload } = payloadOf(file)
    zip.addReadStream(Buffer.isBuffer(payload) ? Readable.from([payload]) : payload, entryName(path), {
      mtime: new Date(file.createdAt),
      compress: false,
      size,
    })
  }
  zip.end()
  const name = single === undefined ? 'attachments.zip' : `${single.name}.zip`
  return reply.header('content-disposition', contentDisposition(name)).type('application/zip').send(zip.outputStream)
}
