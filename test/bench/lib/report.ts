/** One table of the report: a heading, its columns, its rows, and notes under it. */
export interface Table {
  title: string
  columns: string[]
  rows: Array<Array<string | number>>
  notes?: string[]
}

export const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-')
export const ratio = (value: number, base: number) => (base > 0 ? `${(value / base).toFixed(2)}×` : '-')

/** A table as Markdown. */
export function markdown(table: Table): string {
  const lines = [`### ${table.title}`, '', `| ${table.columns.join(' | ')} |`, `|${table.columns.map(() => '---').join('|')}|`]
  for (const row of table.rows) lines.push(`| ${row.join(' | ')} |`)
  for (const note of table.notes ?? []) lines.push('', note)
  return `${lines.join('\n')}\n`
}
