import yauzl from 'yauzl'
import { bufferOf } from '../src/bytes.ts'

/** One entry of a zip archive: its path inside the archive, its bytes and its time. */
export interface ZipEntry {
  name: string
  data: Buffer
  mtime: Date
}

/**
 * The entries of a zip archive in their stored order, with their bytes (folders' own entries,
 * names ending in `/`, left out). A download is read into memory already, and verify bounds its
 * size, so the entries are too; past `maxEntries` the rest are not read.
 */
export async function unzip(bytes: Uint8Array, maxEntries = 500): Promise<ZipEntry[]> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(bufferOf(bytes), { lazyEntries: true, decodeStrings: true }, (err, z) => (err ? reject(err) : resolve(z))),
  )
  const entries: ZipEntry[] = []
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName.endsWith('/')) return zip.readEntry()
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err)
        const chunks: Buffer[] = []
        stream.on('data', (c: Buffer) => chunks.push(c))
        stream.on('error', reject)
        stream.on('end', () => {
          entries.push({ name: entry.fileName, data: Buffer.concat(chunks), mtime: entry.getLastModDate() })
          if (entries.length >= maxEntries) {
            zip.close()
            resolve()
          } else zip.readEntry()
        })
      })
    })
    zip.on('end', resolve)
    zip.on('error', reject)
    zip.readEntry()
  })
  return entries
}
