import { extname } from 'node:path'
import { ProblemError } from '../../errors.ts'
import { toAttachmentRecord } from '../../operations/attachment-record.ts'
import type { Store } from '../../store/store.ts'
import type { AttachmentDef, NewAttachment } from '../../store/model/types.ts'
import { validationProblem } from '../../document/control-body.ts'
import { guidKey } from '../../store/guid.ts'

/** One file to attach. */
export interface UploadFile {
  /** File name; a path is cut to its last segment. */
  name: string
  content: Uint8Array | string
  /** Media type; guessed from the name when absent or `application/octet-stream`. */
  mediaType?: string
}

/** Files to attach to one row (the `AttachmentUpload` schema, plus the files' bytes). */
export interface UploadInput {
  /** Default: the fixture's first application. */
  applicationId?: string
  /** Detail Relation Key of a detail row; absent or null for a master row. */
  relationKey?: string | null
  parentId: number
  /** An existing folder of the row to put the files in. */
  folderId?: number | null
  /** Name of a folder to put the files in, created when missing (inside `folderId` when given). */
  folder?: string
  /** Description of every file. */
  description?: string
  files: UploadFile[]
}

/** Most files one upload may carry. */
export const MAX_UPLOAD_FILES = 50

// Enough to give files uploaded as application/octet-stream (curl's default for many types) a useful type.
const MEDIA_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.zip': 'application/zip',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
}

/** The media type to record for a file. */
export function mediaTypeOf(name: string, given: string | undefined): string {
  if (given !== undefined && given !== '' && given !== 'application/octet-stream') return given
  return MEDIA_TYPES[extname(name).toLowerCase()] ?? 'application/octet-stream'
}

/**
 * Attaches files to an existing row, as the product's UI would: the files then appear in Get
 * Attachments List and download with the same bytes. Everything is checked before anything is
 * added, so a refused upload leaves the row as it was. Returns the new records in the API's
 * attachment record shape, a created folder first.
 */
export function addAttachments(store: Store, input: UploadInput, uploadLimit: number): Array<Record<string, unknown>> {
  const files = input.files.map((file, index) => {
    const name = file.name.split(/[\\/]/).pop()?.trim() ?? ''
    if (name === '') throw validationProblem([{ pointer: `/body/file/${index}`, keyword: 'filename', message: 'needs a file name' }])
    const content = typeof file.content === 'string' ? new TextEncoder().encode(file.content) : file.content
    if (content.byteLength > uploadLimit) {
      throw new ProblemError(
        'PAYLOAD_TOO_LARGE',
        `File ${name} has ${content.byteLength} bytes, more than the upload limit of ${uploadLimit} bytes (--upload-limit).`,
        { limit: uploadLimit },
      )
    }
    return { name, content, mediaType: mediaTypeOf(name, file.mediaType) }
  })
  if (files.length === 0) throw validationProblem([{ pointer: '/body/file', keyword: 'minItems', message: 'must hold at least one file' }])
  if (files.length > MAX_UPLOAD_FILES)
    throw validationProblem([{ pointer: '/body/file', keyword: 'maxItems', message: `must hold at most ${MAX_UPLOAD_FILES} files` }])

  const fixture = store.fixture
  const applicationId = guidKey(input.applicationId ?? fixture.applications[0]?.id ?? '')
  const application = store.application(applicationId)
  if (application === undefined) throw new ProblemError('UNKNOWN_APPLICATION', `No application ${applicationId} in the mock's data.`)
  const relationKey = input.relationKey === undefined || input.relationKey === '' ? null : input.relationKey
  if (relationKey !== null && !application.details.some((d) => d.relationKey === relationKey)) {
    throw new ProblemError('UNKNOWN_RELATION_KEY', `Application ${application.name} has no relation key ${relationKey}.`)
  }
  if (store.getRow(applicationId, relationKey, input.parentId) === null) {
    const storage = relationKey === null ? application.master.name : relationKey
    throw new ProblemError('UNKNOWN_ROW', `Row ${input.parentId} does not exist in ${storage} of application ${application.name}.`)
  }
  const folderId = input.folderId ?? null
  if (folderId !== null) {
    const folder = store.getAttachment(applicationId, relationKey, folderId)
    if (folder === undefined || !folder.isFolder || folder.parentId !== input.parentId) {
      throw new ProblemError('UNKNOWN_ATTACHMENT', `Attachment ${folderId} is not a folder of row ${input.parentId}.`)
    }
  }

  // Uploads are the test's own doing; the first user who may write stands in as their author.
  const users = fixture.organization.users
  const userId = (users.find((u) => u.canWrite) ?? users[0])?.id ?? 1
  const base = { applicationId, relationKey, parentId: input.parentId, userId }
  // One upload is all or nothing: a file that cannot be kept (the state file not written, the
  // attachment Ids used up) takes back the folder and files added before it.
  const added = store.addAttachments((addOne) => {
    const add = (attachment: NewAttachment): AttachmentDef => {
      const result = addOne(attachment)
      // Every reason to refuse was checked above; a refusal here is a bug in this module.
      if ('error' in result) throw new Error(`upload refused after its checks passed: ${result.message}`)
      return result
    }
    const out: AttachmentDef[] = []
    let target = folderId
    if (input.folder !== undefined) {
      const existing = store.listAttachments(applicationId, relationKey, input.parentId, folderId)
      const found = Array.isArray(existing) ? existing.find((a) => a.isFolder && a.name === input.folder) : undefined
      if (found !== undefined) target = found.id
      else {
        const created = add({ ...base, folderId, isFolder: true, name: input.folder, mediaType: '' })
        out.push(created)
        target = created.id
      }
    }
    for (const file of files) {
      out.push(
        add({
          ...base,
          folderId: target,
          isFolder: false,
          name: file.name,
          mediaType: file.mediaType,
          content: file.content,
          description: input.description ?? '',
        }),
      )
    }
    return out
  })
  return added.map((attachment) => toAttachmentRecord(attachment, fixture.organization.timeZone))
}
