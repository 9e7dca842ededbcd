import type { FastifyRequest } from 'fastify'
import { ProblemError } from '../../errors.ts'
import { controlViolations, validationProblem } from '../../document/control-body.ts'
import { MAX_UPLOAD_FILES, type UploadFile, type UploadInput } from '../service/uploads.ts'

/** @fastify/multipart's limit errors, by code, as 413 details. */
const LIMIT_ERRORS: Record<string, (limit: number) => string> = {
  FST_REQ_FILE_TOO_LARGE: (limit) => `A file is larger than the upload limit of ${limit} bytes (--upload-limit).`,
  FST_FILES_LIMIT: () => `An upload carries at most ${MAX_UPLOAD_FILES} files.`,
  FST_FIELDS_LIMIT: () => 'The upload has too many form fields.',
  FST_PARTS_LIMIT: () => 'The upload has too many parts.',
}

/**
 * Reads a `multipart/form-data` upload: the form fields, checked against the `AttachmentUpload`
 * schema (as text, so `parentId=2` counts as the integer 2), and each file's bytes, each at most
 * `uploadLimit` bytes (413 past it). Files are held in memory: they become attachments the mock
 * serves from memory anyway.
 */
export async function readUpload(request: FastifyRequest, uploadLimit: number): Promise<UploadInput> {
  if (!request.isMultipart()) throw new ProblemError('BAD_BODY', 'Send the files as multipart/form-data (for example curl -F parentId=2 -F file=@invoice.pdf).')
  const fields: Record<string, string> = {}
  const files: UploadFile[] = []
  try {
    const parts = request.parts({ limits: { fileSize: uploadLimit, files: MAX_UPLOAD_FILES, fields: 20, fieldSize: 64 * 1024, parts: MAX_UPLOAD_FILES + 20 } })
    for await (const part of parts) {
      if (part.type === 'file') {
        // toBuffer throws RequestFileTooLargeError once the part passes the limit.
        files.push({ name: part.filename, content: await part.toBuffer(), mediaType: part.mimetype })
      } else {
        fields[part.fieldname] = String(part.value)
      }
    }
  } catch (error) {
    const code = (error as { code?: string }).code
    const describe = code === undefined ? undefined : LIMIT_ERRORS[code]
    if (describe !== undefined) throw new ProblemError('PAYLOAD_TOO_LARGE', describe(uploadLimit), { limit: uploadLimit })
    if (error instanceof ProblemError) throw error
    // Anything else the multipart reader throws is the body's fault (busboy: "Unexpected end of multipart data" for a
    // body cut before its closing boundary, "Malformed part header"): a 400 that says so, not a 500.
    throw new ProblemError('BAD_BODY', `The multipart/form-data body cannot be read: ${(error as Error).message}.`)
  }
  // The schema sees the file names where the files were, so a missing file is named like a missing field.
  const checked: Record<string, unknown> = { ...fields, file: files.map((file) => file.name) }
  const violations = controlViolations('AttachmentUpload', checked, { coerce: true })
  if (violations.length > 0) throw validationProblem(violations)
  const input: UploadInput = { parentId: checked.parentId as number, files }
  if (checked.applicationId !== undefined) input.applicationId = checked.applicationId as string
  if (checked.relationKey !== undefined) input.relationKey = checked.relationKey as string
  if (checked.folderId !== undefined) input.folderId = checked.folderId as number
  if (checked.folder !== undefined) input.folder = checked.folder as string
  if (checked.description !== undefined) input.description = checked.description as string
  return input
}
