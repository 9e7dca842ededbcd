import type { AttachmentDef } from './model/types.ts'

/**
 * The attachments of an installation's rows: files and folders, by Id, with the per-row file
 * counts that feed `CT_ATTACHMENTS`. Attachment Ids are unique across the installation.
 * A folder is not counted in `CT_ATTACHMENTS`; the files inside it are (mock's choice).
 */
export class AttachmentStore {
  readonly #byId = new Map<number, AttachmentDef>()
  #nextId = 1

  constructor(attachments: readonly AttachmentDef[]) {
    for (const attachment of attachments) this.#put(attachment)
  }

  #put(attachment: AttachmentDef): void {
    this.#byId.set(attachment.id, attachment)
    this.#nextId = Math.max(this.#nextId, attachment.id + 1)
  }

  /** Id the next added attachment gets. */
  get nextId(): number {
    return this.#nextId
  }

  /** Every attachment, in Id order of insertion. */
  all(): AttachmentDef[] {
    return [...this.#byId.values()]
  }

  /** An attachment of a row of this application and relation key (null: master rows). */
  get(applicationId: string, relationKey: string | null, id: number): AttachmentDef | undefined {
    const attachment = this.#byId.get(id)
    if (attachment === undefined || attachment.applicationId !== applicationId || attachment.relationKey !== relationKey) return undefined
    return attachment
  }

  /** The files and folders directly in a row's top level (folderId null) or in one of its folders. */
  list(applicationId: string, relationKey: string | null, parentId: number, folderId: number | null): AttachmentDef[] {
    return this.all().filter((a) => a.applicationId === applicationId && a.relationKey === relationKey && a.parentId === parentId && a.folderId === folderId)
  }

  /**
   * Every file below a folder, with its path relative to the folder as the names of the folders
   * down to it and its own (for the folder's .zip): names are kept whole, since a name may hold
   * `/` or `..`; the archive makes entry names of them.
   */
  filesUnder(folder: AttachmentDef): Array<{ path: string[]; attachment: AttachmentDef }> {
    const files: Array<{ path: string[]; attachment: AttachmentDef }> = []
    const visit = (parent: AttachmentDef, prefix: string[], seen: Set<number>): void => {
      // A fixture cannot make a cycle (folders must exist first), but an upload bug must not hang us.
      if (seen.has(parent.id)) return
      seen.add(parent.id)
      for (const child of this.list(parent.applicationId, parent.relationKey, parent.parentId, parent.id)) {
        if (child.isFolder) visit(child, [...prefix, child.name], seen)
        else files.push({ path: [...prefix, child.name], attachment: child })
      }
    }
    visit(folder, [], new Set())
    return files
  }

  /** Number of files per row Id, for one application's master rows or one detail table. */
  fileCounts(applicationId: string, relationKey: string | null): Map<number, number> {
    const counts = new Map<number, number>()
    for (const a of this.#byId.values()) {
      if (a.isFolder || a.applicationId !== applicationId || a.relationKey !== relationKey) continue
      counts.set(a.parentId, (counts.get(a.parentId) ?? 0) + 1)
    }
    return counts
  }

  /** Number of files of one row, or null when it has none (`CT_ATTACHMENTS`). */
  fileCount(applicationId: string, relationKey: string | null, parentId: number): number | null {
    let count = 0
    for (const a of this.#byId.values()) {
      if (!a.isFolder && a.applicationId === applicationId && a.relationKey === relationKey && a.parentId === parentId) count++
    }
    return count === 0 ? null : count
  }

  add(attachment: AttachmentDef): void {
    this.#put(attachment)
  }

  /** Takes back an attachment just added, and the Id it took (an upload that could not be kept). */
  undoAdd(attachment: AttachmentDef, nextId: number): void {
    this.#byId.delete(attachment.id)
    this.#nextId = nextId
  }

  /** Every attachment, in Id order of insertion, without copying them out (a big delete looks through them a slice at a time). */
  values(): IterableIterator<AttachmentDef> {
    return this.#byId.values()
  }

  /** Forgets attachments by Id (a big delete's, found beforehand with `values`). */
  removeIds(ids: readonly number[]): void {
    for (const id of ids) this.#byId.delete(id)
  }

  /** Forgets the attachments of a deleted row. */
  removeForRow(applicationId: string, relationKey: string | null, parentId: number): void {
    for (const [id, a] of this.#byId) {
      if (a.applicationId === applicationId && a.relationKey === relationKey && a.parentId === parentId) this.#byId.delete(id)
    }
  }
}
