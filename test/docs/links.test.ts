/**
 * The pages hold together: every relative link between the README, docs/ and the repository's files
 * reaches a file of the repository, every `#anchor` a heading of its target as GitHub slugs it, and
 * every code block marked runnable is one the package test runs.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../cli/processes.ts'
import { anchors, codeBlocks, docPages, links, runnableBlocks } from '../helpers/markdown.ts'

/** Where each page's relative links lead that do not hold: `page:line target (reason)`. */
function brokenLinks(pages: Record<string, string>, exists: (path: string) => boolean, read: (path: string) => string): string[] {
  const broken: string[] = []
  for (const [page, text] of Object.entries(pages)) {
    for (const { line, target } of links(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // https:, mailto: and the like leave the repository by design
      const [path = '', anchor] = target.split('#')
      const file = path === '' ? page : relative(ROOT, resolve(ROOT, dirname(page), decodeURIComponent(path)))
      const where = `${page}:${line} ${target}`
      if (file.startsWith('..')) broken.push(`${where} (outside the repository)`)
      else if (!exists(file)) broken.push(`${where} (no such file)`)
      else if (anchor !== undefined && anchor !== '') {
        if (!file.endsWith('.md')) broken.push(`${where} (an anchor into a file that is not a page)`)
        else if (!anchors(read(file)).has(anchor)) broken.push(`${where} (no heading with that anchor)`)
      }
    }
  }
  return broken
}

const onDisk = (path: string): boolean => existsSync(join(ROOT, path)) && (statSync(join(ROOT, path)).isFile() || statSync(join(ROOT, path)).isDirectory())
const fromDisk = (path: string): string => readFileSync(join(ROOT, path), 'utf8')

describe('links between the pages', () => {
  it('has the README and a page per subject in docs/', () => {
    expect(docPages()).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/mock.md',
        'docs/fixtures.md',
        'docs/control-plane.md',
        'docs/verify.md',
        'docs/behaviour.md',
        'docs/performance.md',
        'docs/troubleshooting.md',
        'docs/tests.md',
      ]),
    )
  })

  it('every relative link of README.md and docs/*.md reaches a file of the repository, and every #anchor a heading of it', () => {
    const pages = Object.fromEntries(docPages().map((page) => [page, fromDisk(page)]))
    expect(brokenLinks(pages, onDisk, fromDisk)).toEqual([])
  })

  it('links the README to every page of docs/', () => {
    const linked = new Set(links(fromDisk('README.md')).map(({ target }) => target.split('#')[0]))
    expect(docPages().filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([])
  })

  it('finds a missing file, a missing anchor, a link out of the repository, and GitHub slugs', () => {
    const pages = {
      'docs/a.md': [
        '# Page A',
        '',
        '## In a CI job',
        '## The `--strict` flag',
        '## Repeated',
        '## Repeated',
        '',
        '[ok](b.md#other-heading) [ok](#in-a-ci-job) [ok](#the---strict-flag) [ok](#repeated-1) [ok](../README.md)',
        '[gone](c.md) [no anchor](b.md#nothing) [out](../../elsewhere.md) [web](https://example.test/x.md)',
        '`[in code](nowhere.md)`',
        '```',
        '[in a block](nowhere.md)',
        '```',
      ].join('\n'),
    }
    const files: Record<string, string> = { 'docs/a.md': pages['docs/a.md'], 'docs/b.md': '# B\n\n## Other heading\n', 'README.md': '# R\n' }
    expect(
      brokenLinks(
        pages,
        (path) => path in files,
        (path) => files[path] as string,
      ),
    ).toEqual([
      'docs/a.md:9 c.md (no such file)',
      'docs/a.md:9 b.md#nothing (no heading with that anchor)',
      'docs/a.md:9 ../../elsewhere.md (outside the repository)',
    ])
  })
})

describe('code blocks of the pages', () => {
  it('marks a block runnable only with a name the package test runs (NAME.test.js for js, NAME.sh for sh), each name once', () => {
    const runnable = runnableBlocks()
    const wrong = runnable.filter(
      ({ language, file }) => !((language === 'js' && /^[\w-]+\.test\.js$/.test(file as string)) || (language === 'sh' && /^[\w-]+\.sh$/.test(file as string))),
    )
    expect(wrong.map(({ page, line, language, file }) => `${page}:${line} ${language} ${file}`)).toEqual([])
    const names = runnable.map(({ file }) => file)
    expect(new Set(names).size).toBe(names.length)
    // The README's two, and at least one of docs/.
    expect(names).toEqual(expect.arrayContaining(['orders.test.js', 'ci-recipe.sh']))
    expect(runnable.some(({ page }) => page.startsWith('docs/'))).toBe(true)
  })

  it('reads the language and the name from the opening fence, and nothing else as runnable', () => {
    const blocks = codeBlocks('x.md', 'text\n```js a.test.js\nrun()\n```\n```text\nout\n```\n```sh\nls\n```\n')
    expect(blocks.map(({ language, file, code }) => [language, file, code])).toEqual([
      ['js', 'a.test.js', 'run()\n'],
      ['text', undefined, 'out\n'],
      ['sh', undefined, 'ls\n'],
    ])
  })
})
