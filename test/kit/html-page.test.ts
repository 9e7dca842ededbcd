/**
 * The one HTML page of the commands' reports (src/commands/kit/html-page.ts): one escape for every text, one
 * shell with the styles that keep a report within a 1,280 px window (test/proxy/reports.test.ts
 * measures the proxy's page in a browser), and each report's own styles after them.
 */
import { describe, expect, it } from 'vitest'
import { escapeHtml, htmlPage, PAGE_STYLE } from '../../src/commands/kit/html-page.ts'

describe('the HTML page of a report', () => {
  it('escapes what would start a tag or an entity, or end an attribute, and nothing else', () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'quoted' &amp;`)).toBe("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; 'quoted' &amp;amp;")
    expect(escapeHtml('/headers/ApplicationId: ~1 é')).toBe('/headers/ApplicationId: ~1 é')
  })

  it('writes the shell: the title escaped in <title> and <h1>, when it was written, the shared styles then its own, the sections in order', () => {
    const page = htmlPage({
      title: 'appdata-kit proxy: http://a.test/?x=<1>',
      writtenAt: '2026-01-05T09:00:00.000Z',
      style: '.mine{color:red}',
      sections: ['<section id="one"></section>', '', '<section id="two"></section>'],
    })
    expect(page.startsWith('<!doctype html>\n<html lang="en">')).toBe(true)
    expect(page).toContain('<title>appdata-kit proxy: http://a.test/?x=&lt;1&gt;</title>')
    expect(page).toContain('<h1>appdata-kit proxy: http://a.test/?x=&lt;1&gt;</h1>\n<p class="muted">Written 2026-01-05T09:00:00.000Z.</p>')
    expect(page).toContain(`<style>${PAGE_STYLE}\n.mine{color:red}</style>`)
    expect(page).toContain('<section id="one"></section>\n<section id="two"></section>\n</body>')
    expect(page).not.toMatch(/<script|<link|src=/)
  })

  it("keeps the rules that fit a report to 1,280 px: text wraps anywhere in the body and cells, the grid's columns may shrink", () => {
    expect(PAGE_STYLE).toMatch(/body\{[^}]*overflow-wrap:anywhere/)
    expect(PAGE_STYLE).toMatch(/th,td\{[^}]*overflow-wrap:anywhere/)
    expect(PAGE_STYLE).toContain('.grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr)')
  })
})
