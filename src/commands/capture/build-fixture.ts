import { convertValue, isDateType, utcMsToWall, wallToUtcMs } from '../../store/model/data-types.ts'
import { isDateTimeNumber, valueFits } from '../../wire/type-forms.ts'
import type { FieldDef, FieldValue } from '../../store/model/types.ts'
import type { FileAttachment, FileRow, FileStorage, FixtureFile } from '../../fixtures/file-format.ts'
import { deriveSeed, mulberry32 } from '../../wire/prng.ts'
import { Anonymiser, rangeOf, spanOf, type DateSpan, type NumberRange } from './anonymise.ts'
import type { InferredField, ReadRow } from './infer.ts'

/** One storage as capture read it. */
export interface CapturedStorage {
  fields: InferredField[]
  identityField: string
  /** The installation's storage Id, when the user gave it; else one is generated. */
  storageId: string | undefined
  rows: ReadRow[]
  /** Rows the installation holds (Get Items Count). */
  count: number
}

/** An attachment record as the attachments list answers it, with its bytes when downloaded. */
export interface CapturedAttachment {
  relationKey: string | null
  record: Record<string, unknown>
  content: Buffer | undefined
  /** A file's size in bytes (its download's), undefined for a folder. */
  size: number | undefined
  /** The media type its download answered, undefined for a folder. */
  mediaType: string | undefined
}

/** Everything capture read from one application. */
export interface Captured {
  organization: string
  clientId: string
  legacyClientId: string
  username: string
  workspaceId: string
  applicationId: string
  master: CapturedStorage
  details: Array<CapturedStorage & { relationKey: string; masterField: string }>
  attachments: CapturedAttachment[]
  /** When the capture ran (ISO), for what the API does not say (the workspace's creation, undated attachments). */
  capturedAt: string
}

export interface BuildOptions {
  anonymise: boolean
  /** Seed of the anonymised values and generated ids. */
  seed: number
  /** The password the captured user signs in to the mock with (never the real one). */
  password: string
  /** The captured user's sign-in name in the fixture; default `DEFAULT_FIXTURE_USERNAME`, or the real one when not anonymising. */
  username?: string | undefined
  /** Write `generate` schemas and no rows, so the mock's `--rows N` makes rows of the same shape. */
  rowsAsGenerator: boolean
  /**
   * Fields (by name, in any captured table) whose values are kept as read while the rest are
   * anonymised: a status or a category a team's tests filter on (`Status eq 'Open'`) must still
   * hold the words the tests name.
   */
  keepValues?: readonly string[] | undefined
}

/** Strings the anonymiser must never produce: every text of the capture. */
function textsOf(captured: Captured): Set<string> {
  const texts = new Set<string>([captured.username])
  for (const storage of [captured.master, ...captured.details])
    for (const row of storage.rows) for (const value of Object.values(row)) if (typeof value === 'string') texts.add(value)
  for (const { record } of captured.attachments)
    for (const key of ['Name', 'Description']) if (typeof record[key] === 'string') texts.add(record[key] as string)
  return texts
}

/** A version-4 GUID from the seed, for a storage whose Id the API does not tell. */
function generatedGuid(seed: number, name: string): string {
  const random = mulberry32(deriveSeed(seed, 'storage', name))
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16))
  hex[12] = '4'
  hex[16] = ((Math.floor(random() * 4) + 8) as number).toString(16)
  const text = hex.join('')
  return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`
}

/** TIMESTAMP texts (base64 of 8 big-endian bytes) as ranks 1..n across every captured row, so their order is kept. */
function versionRanks(captured: Captured): Map<string, number> {
  const versions = new Set<string>()
  for (const storage of [captured.master, ...captured.details])
    for (const row of storage.rows) if (typeof row.TIMESTAMP === 'string') versions.add(row.TIMESTAMP)
  const decoded = [...versions].map((text) => {
    const bytes = Buffer.from(text, 'base64')
    return { text, value: bytes.length === 0 ? 0n : BigInt(`0x${bytes.toString('hex')}`) }
  })
  decoded.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
  return new Map(decoded.map(({ text }, i) => [text, i + 1]))
}

/** What the builder knows of each field's values, for anonymising and for `generate` schemas. */
interface FieldProfile {
  field: InferredField
  range: NumberRange | undefined
  span: DateSpan | undefined
  /** Kept as read: the Identity field and a detail's link to its master. */
  kept: boolean
  /** Values written as read (kept, or named by `keepValues`); a named field still gets a `generate` schema, of its real values. */
  verbatim: boolean
}

const DATE_LIKE = /^\d{4}-\d{2}-\d{2}/

function profiles(storage: CapturedStorage, kept: ReadonlySet<string>, keepValues: ReadonlySet<string>): FieldProfile[] {
  return storage.fields.map((field) => {
    const values = storage.rows.map((row) => row[field.name]).filter((value) => value !== null && value !== undefined)
    const numbers = values.filter((value): value is number => typeof value === 'number')
    const texts = values.filter((value): value is string => typeof value === 'string')
    const structural = kept.has(field.name) || isDateType(field.type)
    return {
      field,
      range: numbers.length > 0 ? rangeOf(numbers) : undefined,
      span: texts.length > 0 && texts.every((text) => DATE_LIKE.test(text)) ? spanOf(texts) : undefined,
      // Dates are kept as read: any value of a date type is as anonymous as another, and stays valid.
      kept: structural,
      verbatim: structural || keepValues.has(field.name),
    }
  })
}

/** A `generate` fragment (JSON Schema for json-schema-faker) that makes values like those read. */
function generateSchema(profile: FieldProfile, values: readonly FieldValue[]): Record<string, unknown> | undefined {
  const { field, range } = profile
  if (field.type === 'Numeric' && range !== undefined) {
    return field.decimals === 0 || range.decimals === 0
      ? { minimum: range.min, maximum: range.max }
      : { minimum: range.min, maximum: range.max, multipleOf: 10 ** -Math.min(range.decimals, 6) }
  }
  if (field.type === 'String') {
    const distinct = [...new Set(values.filter((value): value is string => typeof value === 'string'))]
    if (distinct.length > 0 && distinct.length <= 20) return { enum: distinct }
    const lengths = distinct.map((text) => text.length)
    return lengths.length === 0 ? undefined : { minLength: Math.min(...lengths), maxLength: Math.max(...lengths) }
  }
  return undefined
}

/**
 * The captured user's name in an anonymised fixture when none is given: fixed, so a team's test
 * configuration knows it before any capture runs (it pairs with the default password `sandbox-pass`).
 */
export const DEFAULT_FIXTURE_USERNAME = 'sandbox@example.test'

const SYSTEM_KEPT = ['DT_CREATION', 'DT_LAST_UPDATE', 'USER_ID_CREATION', 'USER_ID_LAST_UPDATE', 'ROW_ORDER'] as const

/**
 * The fixture of a captured application, in the format the mock's loader takes unchanged:
 * the signed-in user (with `password`), the workspace and application ids, the storages with
 * their inferred fields, the rows read (values anonymised unless told otherwise; Ids, Identity
 * values, links to masters and the order of row versions kept), and the attachments read.
 * `notes` says what was generated or left out, for the capture's summary.
 */
export function buildFixture(captured: Captured, options: BuildOptions): { fixture: FixtureFile; notes: string[] } {
  const notes: string[] = []
  const anonymiser = new Anonymiser(options.seed, textsOf(captured))
  const ranks = versionRanks(captured)
  const text = (value: string, span?: DateSpan) => (options.anonymise ? anonymiser.text(value, span) : value)

  const storages = [
    { name: 'master', key: null as string | null, storage: captured.master, kept: new Set([captured.master.identityField]) },
    ...captured.details.map((detail) => ({
      name: detail.relationKey,
      key: detail.relationKey as string | null,
      storage: detail as CapturedStorage,
      kept: new Set([detail.identityField, detail.masterField]),
    })),
  ]
  const built = storages.map(({ name, key, storage, kept }) => {
    const fieldProfiles = profiles(storage, kept, new Set(options.keepValues ?? []))
    const dateSpan = spanOf(
      storage.rows
        .flatMap((row) => [row.DT_CREATION, row.DT_LAST_UPDATE])
        .filter((value): value is number => typeof value === 'number' && valueFits('DateTime', value))
        .map(wallToUtcMs),
    )
    const fields: FieldDef[] = fieldProfiles
      .filter(({ field }) => field.name !== storage.identityField)
      .map((profile) => {
        const generate =
          options.rowsAsGenerator && !profile.kept
            ? generateSchema(
                profile,
                storage.rows.map((row) => convert(profile, row[profile.field.name])),
              )
            : undefined
        const { name, type, decimals } = profile.field
        return { name, type, ...(decimals === undefined ? {} : { decimals }), ...(generate === undefined ? {} : { generate }) }
      })
    const storageId = storage.storageId ?? generatedGuid(options.seed, name)
    if (storage.storageId === undefined)
      notes.push(`storage ${name}: Id ${storageId} generated (the API does not tell it${key === null ? '; --storage-id gives it' : ''})`)
    const fileStorage: FileStorage = { id: storageId, name: key ?? 'Master', identityField: storage.identityField, fields }
    const rows = options.rowsAsGenerator ? [] : storage.rows.map((row) => fileRow(row, fieldProfiles))
    return { key, fileStorage, rows }

    /** Creation within the span seen; the last update as long after it as it was (DateTime numbers, wall clock). */
    function anonymiseDates(out: Record<string, FieldValue>, span: DateSpan | undefined): void {
      const created = out.DT_CREATION
      const updated = out.DT_LAST_UPDATE
      if (typeof created === 'number') out.DT_CREATION = anonymiser.dateTime(created, span)
      if (typeof updated === 'number') {
        out.DT_LAST_UPDATE =
          typeof created === 'number'
            ? utcMsToWall(wallToUtcMs(out.DT_CREATION as number) + Math.max(0, wallToUtcMs(updated) - wallToUtcMs(created)))
            : anonymiser.dateTime(updated, span)
      }
    }

    function convert(profile: FieldProfile, read: unknown): FieldValue {
      if (read === null || read === undefined) return null
      // Values read in another form than their type's (ISO texts, true/false) go into the fixture in the type's form.
      const value = convertValue(profile.field.type, read, 'UTC')?.value ?? read
      if (profile.verbatim || !options.anonymise) return value as FieldValue
      if (typeof value === 'string') return options.anonymise ? anonymiser.typedText(profile.field.type, value, profile.span) : value
      if (typeof value === 'number' && profile.range !== undefined) return anonymiser.number(profile.field.name, value, profile.range)
      return value as FieldValue
    }

    function fileRow(row: ReadRow, fieldProfiles: FieldProfile[]): FileRow {
      const out: Record<string, FieldValue> = { Id: row.Id as number }
      for (const profile of fieldProfiles) {
        const value = convert(profile, row[profile.field.name])
        if (value !== null) out[profile.field.name] = value
      }
      for (const name of SYSTEM_KEPT) {
        const value = row[name]
        // Kept only in the forms the loader takes; an installation's own formats are left to the store.
        if (name.startsWith('DT_') ? value !== null && valueFits('DateTime', value) : Number.isSafeInteger(value) && (value as number) >= 1)
          out[name] = value as FieldValue
      }
      if (options.anonymise) anonymiseDates(out, dateSpan)
      const rank = typeof row.TIMESTAMP === 'string' ? ranks.get(row.TIMESTAMP) : undefined
      if (rank !== undefined) out.TIMESTAMP = rank
      return out as FileRow
    }
  })

  const [master, ...details] = built
  const email = options.username ?? (options.anonymise ? DEFAULT_FIXTURE_USERNAME : captured.username)
  const attachments = captured.attachments.map((attachment) =>
    fileAttachment(attachment, captured, options, text, (name) => (options.anonymise ? anonymiser.fileName(name) : name)),
  )
  const placeholders = attachments.filter((attachment) => attachment.placeholderBytes !== undefined).length
  if (placeholders > 0 && !options.rowsAsGenerator) {
    notes.push(
      `${placeholders} attachment file(s) recorded without their bytes (${options.anonymise ? 'anonymising replaces them; --no-anonymise --attachments keeps them' : '--attachments downloads them, within --attachment-limit'}): the mock answers placeholder bytes of each one's size and media type`,
    )
  }
  const fixture: FixtureFile = {
    organization: {
      physicalName: captured.organization,
      clientId: captured.clientId,
      legacyClientId: captured.legacyClientId,
      users: [{ id: 1, email, password: options.password, workspaceIds: [captured.workspaceId], canWrite: true, hiddenFields: {} }],
      workspaces: [{ id: captured.workspaceId, name: 'Captured workspace', createdAt: captured.capturedAt, applicationIds: [captured.applicationId] }],
    },
    applications: [
      {
        id: captured.applicationId,
        name: 'Captured application',
        master: (master as (typeof built)[number]).fileStorage,
        details: captured.details.map((detail, i) => ({
          relationKey: detail.relationKey,
          masterField: detail.masterField,
          storage: (details[i] as (typeof built)[number]).fileStorage,
        })),
      },
    ],
    data: {
      [captured.applicationId]: {
        masters: (master as (typeof built)[number]).rows,
        details: Object.fromEntries(details.map((detail) => [detail.key as string, detail.rows])),
      },
    },
    attachments: options.rowsAsGenerator ? [] : attachments,
  }
  notes.push(
    `user ${email} (--fixture-username) signs in to the mock with the password given by --fixture-password; it may write (the capture cannot tell whether the real user may)`,
  )
  return { fixture, notes }
}

const MEDIA_TYPE = /^[a-z]+\/[A-Za-z0-9.+-]+$/

/**
 * An attachment record in the fixture's terms. A file keeps its bytes when they were downloaded and
 * values are kept; else (not downloaded, or anonymised) it is recorded by size, and the mock answers
 * placeholder bytes of that size.
 */
function fileAttachment(
  attachment: CapturedAttachment,
  captured: Captured,
  options: BuildOptions,
  text: (value: string) => string,
  fileName: (name: string) => string,
): FileAttachment {
  const { record } = attachment
  const isFolder = record.IsFolder === true
  const out: FileAttachment = {
    id: Number(record.Id),
    applicationId: captured.applicationId,
    relationKey: attachment.relationKey,
    parentId: Number(record.ParentId),
    folderId: typeof record.FolderId === 'number' ? record.FolderId : null,
    isFolder,
    name: fileName(String(record.Name ?? 'attachment')),
    createdAt: dateOf(record.DT_CREATION) ?? captured.capturedAt,
    userId: 1,
  }
  if (typeof record.Description === 'string' && record.Description !== '') out.description = options.anonymise ? text(record.Description) : record.Description
  if (isFolder) return out
  // The list's type first (the mock answers it in both places); the download's when the list's is no media type.
  out.mediaType =
    [record.TypeImage, attachment.mediaType].find((type): type is string => typeof type === 'string' && MEDIA_TYPE.test(type)) ?? 'application/octet-stream'
  if (attachment.content !== undefined && !options.anonymise) out.content = attachment.content.toString('base64')
  else out.placeholderBytes = attachment.content?.length ?? attachment.size ?? 0
  return out
}

/** The attachments list's `yyyymmddhhmmss` number as an ISO date-time. */
function dateOf(value: unknown): string | undefined {
  return typeof value === 'number' && isDateTimeNumber(value) ? new Date(wallToUtcMs(value)).toISOString() : undefined
}
