import { dateTimeIn } from '../store/model/data-types.ts'
import type { AttachmentDef } from '../store/model/types.ts'

/** An attachment as Get Attachments List answers it (the description's attachment record). */
export function toAttachmentRecord(attachment: AttachmentDef, timeZone: string): Record<string, unknown> {
  // The description's own form: yyyymmddhhmmss, in the installation's time zone as every DateTime.
  const created = dateTimeIn(Date.parse(attachment.createdAt), timeZone)
  return {
    Id: attachment.id,
    ParentId: attachment.parentId,
    FolderId: attachment.folderId,
    IsFolder: attachment.isFolder,
    Name: attachment.name,
    Description: attachment.description,
    // A folder has no media type; the description leaves its TypeImage open (mock-defined).
    TypeImage: attachment.isFolder ? '' : attachment.mediaType,
    DT_CREATION: created,
    DT_LAST_UPDATE: created,
    USER_ID_CREATION: attachment.userId,
    USER_ID_LAST_UPDATE: attachment.userId,
  }
}
