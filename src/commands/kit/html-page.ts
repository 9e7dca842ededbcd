/**
 * The one HTML page the commands write as a report (`verify --html`, `proxy --html`): a
 * self-contained file (styles inline, no script, nothing fetched) for a CI artifact, with the
 * escape every text passes through. The page fits a 1,280 px window however long a value is: text
 * wraps anywhere in the body and in table cells, and the two columns of a `.grid` (a request beside
 * its answer) may shrink below their content's width, a long line scrolling inside its `pre`.
 */

/** A text as HTML: the characters that would start a tag, an entity or end an attribute's value written as entities. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/** The styles every report shares: type, tables, bodies as `pre`, muted notes, the two-column grid. */
export const PAGE_STYLE = `body{font:14px/1.45 system-ui,sans-serif;color:#1d2430;margin:1rem 1.5rem;overflow-wrap:anywhere}h1{font-size:1.2rem}h2{font-size:1.05rem;margin-top:1.4rem}h3{font-size:.95rem}
table{border-collapse:collapse;margin:.3rem 0;width:100%}th,td{border:1px solid #d6dbe3;padding:.2rem .45rem;text-align:left;vertical-align:top;overflow-wrap:anywhere}th{background:#f3f5f8}
pre{background:#f6f8fa;padding:.35rem .5rem;margin:.2rem 0;white-space:pre-wrap;word-break:break-all;max-height:24rem;overflow:auto}
.muted{color:#5b6472}.grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:.6rem}h4,h5{margin:.5rem 0 .2rem}`

/** What a report's page holds. */
export interface HtmlPage {
  /** The page's title and heading, as plain text (escaped here; redacted by the caller). */
  title: string
  /** When the report was written (ISO), said under the heading. */
  writtenAt: string
  /** The report's own styles, after the shared ones (its colours for outcomes, its blocks). */
  style: string
  /** The body's sections, as HTML, in order. */
  sections: readonly string[]
}

/** The whole page: the shell, the shared and the report's own styles, the heading, the sections. */
export function htmlPage(page: HtmlPage): string {
  const title = escapeHtml(page.title)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${PAGE_STYLE}
${page.style}</style>
</head>
<body>
<h1>${title}</h1>
<p class="muted">Written ${escapeHtml(page.writtenAt)}.</p>
${page.sections.filter((section) => section !== '').join('\n')}
</body>
</html>
`
}
