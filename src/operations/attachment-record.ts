import type { AttachmentDef } from '../store/types.ts'

/** An ISO time as the attachment list writes it: the number yyyymmddhhmmss (UTC). */
export function compactTime(iso: string): number {
  const d = new Date(iso)
  const pad = (n: number, width = 2) => String(n).padStart(width, '0')
  return Number(`${pad(d.getUTCFullYear(), 4)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}`)
}

/** An attachment as Get Attachments List answers it (the description's attachment record). */
export function toAttachmentRecord(attachment: AttachmentDef): Record<string, unknown> {
  return {
    Id: attachment.id,
    ParentId: attachment.parentId,
    FolderId: attachment.folderId,
    IsFolder: attachment.isFolder,
    Name: attachment.name,
    Description: attachment.description,
    // A folder has no media type; the description leaves its TypeImage open (mock-defined).
    TypeImage: attachment.isFolder ? '' : attachment.mediaType,
    DT_CREATION: compactTime(attachment.createdAt),
    DT_LAST_UPDATE: compactTime(attachment.createdAt),
    USER_ID_CREATION: attachment.userId,
    USER_ID_LAST_UPDATE: attachment.userId,
  }
}
