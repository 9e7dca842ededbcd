/**
 * The default fixture's attachment payloads, built byte by byte so the committed files under
 * fixtures/files/ are real documents a viewer opens, yet small and reproducible. They live beside the
 * document because Download Attachment's examples show them (spec/paths/download-attachment.ts), and the
 * document imports nothing from src/ but the problem catalog; src/fixtures/payloads.ts writes the files.
 */

/** A one-page PDF 1.4 showing `lines` in Helvetica, with a correct cross-reference table. */
export function tinyPdf(lines: readonly string[]): Uint8Array {
  const escape = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`)
  const text = lines.map((line, i) => `${i === 0 ? '' : '0 -22 Td '}(${escape(line)}) Tj`).join('\n')
  const stream = `BT /F1 16 Tf 40 100 Td\n${text}\nET`
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 320 160] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]
  let pdf = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((body, i) => {
    offsets.push(pdf.length)
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`
  })
  const xref = pdf.length
  // Each cross-reference entry is exactly 20 bytes: 10-digit offset, generation, type, space, newline.
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`
  for (const offset of offsets) pdf += `${String(offset).padStart(10, '0')} 00000 n \n`
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return new TextEncoder().encode(pdf)
}

/**
 * A baseline JPEG of one flat grey 8x8 block (`grey` 0..255): JFIF header, a comment, an
 * all-ones quantization table, and one-symbol Huffman tables, so the whole scan is the DC
 * value and an end-of-block.
 */
export function tinyJpeg(grey: number, comment: string): Uint8Array {
  const dc = 8 * (Math.round(grey) - 128)
  const category = dc === 0 ? 0 : Math.floor(Math.log2(Math.abs(dc))) + 1
  const magnitude = dc >= 0 ? dc : dc + 2 ** category - 1
  const bits = `0${category === 0 ? '' : magnitude.toString(2).padStart(category, '0')}0`
  const padded = bits.padEnd(Math.ceil(bits.length / 8) * 8, '1')
  const scan: number[] = []
  for (let i = 0; i < padded.length; i += 8) {
    const byte = Number.parseInt(padded.slice(i, i + 8), 2)
    scan.push(byte)
    if (byte === 0xff) scan.push(0x00)
  }
  const segment = (marker: number, body: number[]) => [0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body]
  const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0) & 0x7f)
  const oneSymbol = (tableClass: number, symbol: number) => [tableClass << 4, 1, ...new Array<number>(15).fill(0), symbol]
  return Uint8Array.from([
    0xff,
    0xd8,
    ...segment(0xe0, [...ascii('JFIF'), 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...segment(0xfe, ascii(comment)),
    ...segment(0xdb, [0, ...new Array<number>(64).fill(1)]),
    ...segment(0xc0, [8, 0, 8, 0, 8, 1, 1, 0x11, 0]),
    ...segment(0xc4, oneSymbol(0, category)),
    ...segment(0xc4, oneSymbol(1, 0x00)),
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    ...scan,
    0xff,
    0xd9,
  ])
}

/** File name under fixtures/files/ to its bytes. */
export function defaultPayloads(): Record<string, Uint8Array> {
  return {
    'invoice.pdf': tinyPdf(['ACME Trading - Invoice 2024-0001', 'Customer: Bergmann Logistik GmbH', 'Total: 245.80 EUR']),
    'front.jpg': tinyJpeg(72, 'front of parcel, order 1'),
    'back.jpg': tinyJpeg(200, 'back of parcel, order 1'),
    'spec.txt': new TextEncoder().encode('Product specification: Pallet wrap film, 500 mm x 300 m\nThickness: 23 micron\nColour: clear\nRolls per box: 6\n'),
  }
}
