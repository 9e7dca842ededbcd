import yauzl from 'yauzl'

/** Entries of a zip archive in their stored order, with their bytes. */
export async function unzip(bytes: Uint8Array): Promise<Array<{ name: string; data: Buffer; mtime: Date }>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { lazyEntries: true, decodeStrings: true }, (err, z) => (err ? reject(err) : resolve(z))),
  )
  const entries: Array<{ name: string; data: Buffer; mtime: Date }> = []
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (err, stream) => {
        if (err) return reject(err)
        const chunks: Buffer[] = []
        stream.on('data', (c: Buffer) => chunks.push(c))
        stream.on('end', () => {
          entries.push({ name: entry.fileName, data: Buffer.concat(chunks), mtime: entry.getLastModDate() })
          zip.readEntry()
        })
      })
    })
    zip.on('end', resolve)
    zip.on('error', reject)
    zip.readEntry()
  })
  return entries
}
