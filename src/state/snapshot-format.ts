/**
 * The snapshot's bytes: the data by column, as the store's tables hold it, so writing it copies
 * columns and reading it back fills them, with no row object and no JSON per row.
 *
 *     "ADKSTATE" u32 version  u32 n  header (n bytes of JSON, padded to 8)
 *     each attachment's bytes (lengths in the header), padded to 8
 *     per table (the header's order): chunks, each  u32 rows  u32 n  body (n bytes), then  u32 0  u32 0
 *     "ADKS-END"
 *
 * A chunk's body holds each column of its rows in the table's column order: u32 tag, u32 n, n
 * bytes padded to 8 (so number columns are read in place). Numbers go as float64, as int32 when
 * each is an integer that fits (null as -2^31), as a start and a step when they climb evenly (Ids,
 * ROW_ORDER), or as nothing when all are null. Text goes as a code per row, u32: 0 for null, an
 * entry of the column's dictionary (new entries come in the chunk that first needs them, up to
 * DICTIONARY_LIMIT per column), or LITERAL for a string written in the chunk itself; a string is
 * u32 n and n bytes of UTF-8, or, with the top bit of n set, of its JSON text (a string holding a
 * lone surrogate, which UTF-8 cannot carry). Multiselection arrays go as the chunk's JSON. Integers
 * are little-endian.
 */
import { closeSync, openSync, readSync } from 'node:fs'
import type { DataImage, ImageHeader } from '../store/image.ts'
import type { AttachmentDef, ChunkValues, ColumnChunk, ColumnKind, FieldValue, StoredRows } from '../store/model/types.ts'

const MAGIC = Buffer.from('ADKSTATE')
const END = Buffer.from('ADKS-END')
/** The format's version, the u32 after the magic. */
export const FORMAT_VERSION = 1

/** Whether a file that begins with these bytes is a snapshot in this format (else: the older JSON state file). */
export function isSnapshot(first: Uint8Array): boolean {
  return first.length >= MAGIC.length && Buffer.from(first.buffer, first.byteOffset, MAGIC.length).equals(MAGIC)
}

/** Rows per chunk: a chunk is written, and read back, in a few milliseconds. */
export const CHUNK_ROWS = 8192

/** Distinct strings a text column keeps in its dictionary; the rest are written with each row. */
const DICTIONARY_LIMIT = 65_536
const LITERAL = 0xffffffff
const INT32_NULL = -0x80000000
/** The top bit of a string's length: its bytes are its JSON text. */
const AS_JSON = 0x80000000
/** A lone surrogate: in `u` mode a pair is one code point, which this does not match. */
const LONE_SURROGATE = /\p{Surrogate}/u

enum Tag {
  Float64 = 1,
  Int32 = 2,
  AllNull = 3,
  Steps = 4,
  Text = 5,
  Json = 6,
}

/** The header: everything but the rows and the attachments' bytes. */
export interface SnapshotHeader extends Omit<ImageHeader, 'attachments'> {
  /** The snapshot's own name: the change log that continues it names it on its first line. */
  id: string
  /** When it was written (ISO 8601), for people reading the file. */
  written: string
  /** The attachments without their bytes; `bytes`: how many follow for each (absent: none). */
  attachments: Array<Omit<AttachmentDef, 'content' | 'file'> & { bytes?: number }>
  tables: Array<{ storageId: string; columns: string[]; kinds: ColumnKind[]; rows: number }>
}

const pad8 = (n: number) => (n + 7) & ~7

/** Little pieces of bytes gathered into one buffer. */
class Bytes {
  #parts: Buffer[] = []
  length = 0
  push(part: Buffer): void {
    this.#parts.push(part)
    this.length += part.length
  }
  u32(value: number): void {
    const part = Buffer.allocUnsafe(4)
    part.writeUInt32LE(value >>> 0)
    this.push(part)
  }
  /** Zeros up to the next multiple of 8 from `from`. */
  pad(from: number): void {
    const padding = pad8(this.length - from) - (this.length - from)
    if (padding > 0) this.push(Buffer.alloc(padding))
  }
  take(): Buffer {
    const joined = Buffer.concat(this.#parts, this.length)
    this.#parts = []
    this.length = 0
    return joined
  }
}

/** One column of a chunk: its tag and its bytes. */
function encodeNumbers(values: Float64Array, count: number): [Tag, Buffer] {
  let allNull = true
  let ints = true
  let steps = count >= 2
  const first = values[0] as number
  const step = count >= 2 ? (values[1] as number) - first : 0
  for (let i = 0; i < count; i++) {
    const value = values[i] as number
    if (value === value) allNull = false
    if (ints && !(value !== value || (Number.isInteger(value) && value > INT32_NULL && value <= 0x7fffffff && !Object.is(value, -0)))) ints = false
    if (steps && value !== first + i * step) steps = false
  }
  if (allNull) return [Tag.AllNull, Buffer.alloc(0)]
  if (steps && Number.isFinite(step)) {
    const out = Buffer.allocUnsafe(16)
    out.writeDoubleLE(first, 0)
    out.writeDoubleLE(step, 8)
    return [Tag.Steps, out]
  }
  if (ints) {
    const out = new Int32Array(count)
    for (let i = 0; i < count; i++) {
      const value = values[i] as number
      out[i] = value !== value ? INT32_NULL : value
    }
    return [Tag.Int32, Buffer.from(out.buffer, out.byteOffset, out.byteLength)]
  }
  const copy = values.slice(0, count)
  return [Tag.Float64, Buffer.from(copy.buffer, copy.byteOffset, copy.byteLength)]
}

/** A text column's dictionary as the writer grows it. */
type Dictionary = Map<string, number>

function encodeText(values: readonly FieldValue[], count: number, dictionary: Dictionary): [Tag, Buffer] {
  const codes = new Uint32Array(count)
  const added: string[] = []
  const literals: string[] = []
  for (let i = 0; i < count; i++) {
    const value = values[i]
    if (typeof value !== 'string') continue
    let code = dictionary.get(value)
    if (code === undefined) {
      if (dictionary.size < DICTIONARY_LIMIT) {
        code = dictionary.size + 1
        dictionary.set(value, code)
        added.push(value)
      } else {
        code = LITERAL
        literals.push(value)
      }
    }
    codes[i] = code
  }
  const out = new Bytes()
  const strings = (list: string[]) => {
    out.u32(list.length)
    for (const text of list) {
      const json = LONE_SURROGATE.test(text)
      const bytes = Buffer.from(json ? JSON.stringify(text) : text, 'utf8')
      out.u32(json ? (bytes.length | AS_JSON) >>> 0 : bytes.length)
      out.push(bytes)
    }
  }
  strings(added)
  out.push(Buffer.from(codes.buffer, codes.byteOffset, codes.byteLength))
  strings(literals)
  return [Tag.Text, out.take()]
}

/** One chunk of a table: u32 rows, u32 n, the body. */
function encodeChunk(chunk: ColumnChunk, kinds: readonly ColumnKind[], dictionaries: Dictionary[]): Buffer {
  const body = new Bytes()
  chunk.columns.forEach((values, c) => {
    let encoded: [Tag, Buffer]
    if (values instanceof Float64Array) encoded = encodeNumbers(values, chunk.count)
    else if (kinds[c] === 'text') encoded = encodeText(values, chunk.count, dictionaries[c] as Dictionary)
    else encoded = [Tag.Json, Buffer.from(JSON.stringify(values.slice(0, chunk.count)), 'utf8')]
    const [tag, bytes] = encoded
    body.u32(tag)
    body.u32(bytes.length)
    const from = body.length
    body.push(bytes)
    body.pad(from)
  })
  const head = Buffer.allocUnsafe(8)
  head.writeUInt32LE(chunk.count, 0)
  head.writeUInt32LE(body.length, 4)
  return Buffer.concat([head, body.take()])
}

/**
 * The snapshot of an image, as pieces of bytes to write one after the other: the header and the
 * attachments first, then a chunk of CHUNK_ROWS rows per piece. Reading the image happens as the
 * pieces are asked for, so a writer that asks for them a slice at a time reads the store in slices.
 */
export function* encodeSnapshot(image: DataImage, id: string, written: Date): Generator<Buffer, void> {
  const { attachments, ...rest } = image.header
  const header: SnapshotHeader = {
    id,
    written: written.toISOString(),
    ...rest,
    attachments: attachments.map((attachment) => {
      const { content, file: _file, ...kept } = attachment
      return content === undefined ? kept : { ...kept, bytes: content.byteLength }
    }),
    tables: image.tables.map(({ storageId, image: table }) => ({ storageId, columns: [...table.columns], kinds: [...table.kinds], rows: table.rows })),
  }
  const head = new Bytes()
  head.push(MAGIC)
  head.u32(FORMAT_VERSION)
  const json = Buffer.from(JSON.stringify(header), 'utf8')
  head.u32(json.length)
  head.push(json)
  head.pad(0)
  yield head.take()
  for (const attachment of attachments) {
    if (attachment.content === undefined) continue
    const bytes = Buffer.from(attachment.content.buffer, attachment.content.byteOffset, attachment.content.byteLength)
    yield Buffer.concat([bytes, Buffer.alloc(pad8(bytes.length) - bytes.length)])
  }
  for (const { image: table } of image.tables) {
    const dictionaries = table.kinds.map((): Dictionary => new Map())
    for (let chunk = table.read(CHUNK_ROWS); chunk !== undefined; chunk = table.read(CHUNK_ROWS)) yield encodeChunk(chunk, table.kinds, dictionaries)
    yield Buffer.alloc(8)
  }
  yield END
}

/** A snapshot that cannot be read, said with the file and where. */
export class SnapshotError extends Error {}

/**
 * A snapshot file opened for reading: its header, its attachments, and its rows as StoredRows, read
 * a chunk at a time from the file whenever the store loads them (at start, and again at each
 * reset that returns to them). The file stays open until `close`: a later snapshot renamed over
 * the path leaves these bytes readable.
 */
export class SnapshotFile implements StoredRows {
  readonly path: string
  readonly header: SnapshotHeader
  readonly attachments: AttachmentDef[]
  readonly #fd: number
  #closed = false
  /** Where each table's chunks begin, by storage Id. */
  readonly #starts = new Map<string, { at: number; table: SnapshotHeader['tables'][number] }>()

  private constructor(
    path: string,
    fd: number,
    header: SnapshotHeader,
    attachments: AttachmentDef[],
    starts: Map<string, { at: number; table: SnapshotHeader['tables'][number] }>,
  ) {
    this.path = path
    this.#fd = fd
    this.header = header
    this.attachments = attachments
    this.#starts = starts
  }

  /** Opens and checks a snapshot: its header, its attachments, where each table starts, its end. Throws SnapshotError. */
  static open(path: string): SnapshotFile {
    const fd = openSync(path, 'r')
    try {
      const fail = (what: string): never => {
        throw new SnapshotError(`snapshot ${path}: ${what}`)
      }
      const read = (at: number, length: number): Buffer => {
        const bytes = Buffer.allocUnsafe(length)
        let got = 0
        while (got < length) {
          const n = readSync(fd, bytes, got, length - got, at + got)
          if (n === 0) fail(`cut short at byte ${at + got} (a file written whole ends with ${END.toString()})`)
          got += n
        }
        return bytes
      }
      const start = read(0, 16)
      if (!isSnapshot(start)) fail('not a snapshot of this format')
      const version = start.readUInt32LE(8)
      if (version !== FORMAT_VERSION) fail(`format version ${version}, and this version of appdata-kit reads ${FORMAT_VERSION}`)
      const length = start.readUInt32LE(12)
      let header: SnapshotHeader
      try {
        header = JSON.parse(read(16, length).toString('utf8')) as SnapshotHeader
      } catch {
        return fail('its header is not JSON')
      }
      let at = pad8(16 + length)
      const attachments = header.attachments.map((recorded): AttachmentDef => {
        const { bytes, ...rest } = recorded
        if (bytes === undefined) return rest
        const content = new Uint8Array(read(at, bytes))
        at += pad8(bytes)
        return { ...rest, content }
      })
      const starts = new Map<string, { at: number; table: SnapshotHeader['tables'][number] }>()
      for (const table of header.tables) {
        starts.set(table.storageId, { at, table })
        for (;;) {
          const head = read(at, 8)
          at += 8 + head.readUInt32LE(4)
          if (head.readUInt32LE(0) === 0) break
        }
      }
      if (!read(at, END.length).equals(END)) fail(`no end mark at byte ${at}`)
      return new SnapshotFile(path, fd, header, attachments, starts)
    } catch (error) {
      closeSync(fd)
      throw error
    }
  }

  get masterRows(): number {
    return this.header.masterRows
  }

  get detailRows(): number {
    return this.header.detailRows
  }

  get nextVersion(): number {
    return this.header.nextVersion
  }

  get nextRowOrders(): Readonly<Record<string, number>> {
    return this.header.nextRowOrders
  }

  rowsOf(storageId: string): number {
    return this.#starts.get(storageId)?.table.rows ?? 0
  }

  *chunks(storageId: string, columns: readonly string[], kinds: readonly ColumnKind[]): Generator<ColumnChunk, void> {
    const start = this.#starts.get(storageId)
    if (start === undefined) return
    const stored = start.table
    // Where each asked-for column is in the file (-1: not there, so null), and whether its kind is the same.
    const from = columns.map((name, i) => {
      const at = stored.columns.indexOf(name)
      return at >= 0 && stored.kinds[at] === kinds[i] ? at : -1
    })
    const dictionaries = stored.columns.map((): string[] => [])
    let at = start.at
    let buffer = new Uint8Array(0)
    for (;;) {
      const head = Buffer.allocUnsafe(8)
      this.#read(head, 8, at)
      const count = head.readUInt32LE(0)
      const length = head.readUInt32LE(4)
      at += 8
      if (count === 0) return
      // A fresh buffer of its own for each chunk: number columns are handed out as views of it.
      buffer = new Uint8Array(new ArrayBuffer(length))
      this.#read(buffer, length, at)
      at += length
      const decoded = decodeChunk(Buffer.from(buffer.buffer, 0, length), count, stored.kinds, dictionaries, this.path)
      yield {
        count,
        columns: from.map(
          (index, i): ChunkValues =>
            index >= 0
              ? (decoded[index] as ChunkValues)
              : kinds[i] === 'number'
                ? new Float64Array(count).fill(Number.NaN)
                : new Array<FieldValue>(count).fill(null),
        ),
      }
    }
  }

  #read(into: Uint8Array, length: number, at: number): void {
    let got = 0
    while (got < length) {
      const n = readSync(this.#fd, into, got, length - got, at + got)
      if (n === 0) throw new SnapshotError(`snapshot ${this.path}: cut short at byte ${at + got}`)
      got += n
    }
  }

  /** Closes the file (once; later calls do nothing). */
  close(): void {
    if (this.#closed) return
    this.#closed = true
    closeSync(this.#fd)
  }
}

/** The columns of one chunk's body, in the file's column order. */
function decodeChunk(body: Buffer, count: number, kinds: readonly ColumnKind[], dictionaries: string[][], path: string): ChunkValues[] {
  let at = 0
  return kinds.map((kind, c): ChunkValues => {
    const tag = body.readUInt32LE(at) as Tag
    const length = body.readUInt32LE(at + 4)
    const start = at + 8
    at = start + pad8(length)
    switch (tag) {
      case Tag.Float64:
        return new Float64Array(body.buffer, body.byteOffset + start, count)
      case Tag.Int32: {
        const ints = new Int32Array(body.buffer, body.byteOffset + start, count)
        const out = new Float64Array(count)
        for (let i = 0; i < count; i++) {
          const value = ints[i] as number
          out[i] = value === INT32_NULL ? Number.NaN : value
        }
        return out
      }
      case Tag.AllNull:
        return kind === 'number' ? new Float64Array(count).fill(Number.NaN) : new Array<FieldValue>(count).fill(null)
      case Tag.Steps: {
        const first = body.readDoubleLE(start)
        const step = body.readDoubleLE(start + 8)
        const out = new Float64Array(count)
        for (let i = 0; i < count; i++) out[i] = first + i * step
        return out
      }
      case Tag.Text:
        return decodeText(body, start, count, dictionaries[c] as string[])
      case Tag.Json:
        return JSON.parse(body.toString('utf8', start, start + length)) as FieldValue[]
      default:
        throw new SnapshotError(`snapshot ${path}: a column of an unknown kind (${tag as number})`)
    }
  })
}

function decodeText(body: Buffer, start: number, count: number, dictionary: string[]): FieldValue[] {
  let at = start
  const strings = (): string[] => {
    const n = body.readUInt32LE(at)
    at += 4
    const list = new Array<string>(n)
    for (let i = 0; i < n; i++) {
      const word = body.readUInt32LE(at)
      const length = word & ~AS_JSON
      const text = body.toString('utf8', at + 4, at + 4 + length)
      list[i] = word >= AS_JSON ? (JSON.parse(text) as string) : text
      at += 4 + length
    }
    return list
  }
  for (const text of strings()) dictionary.push(text)
  // Read a code at a time: the codes need not lie on a multiple of 4.
  const codesAt = at
  at += 4 * count
  const literals = strings()
  let literal = 0
  const out = new Array<FieldValue>(count)
  for (let i = 0; i < count; i++) {
    const code = body.readUInt32LE(codesAt + 4 * i)
    out[i] = code === 0 ? null : code === LITERAL ? (literals[literal++] as string) : (dictionary[code - 1] as string)
  }
  return out
}
