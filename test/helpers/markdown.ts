/**
 * The documentation as the tests read it: the README and every page of docs/, their fenced code
 * blocks, their links and the anchors GitHub gives their headings.
 *
 * A code block is runnable when its info string names a file after the language
 * (```js orders.test.js, ```sh ci-recipe.sh): test/package/pack.test.ts writes it under that name
 * into a project that installed the packed package and runs it there. Any other block is an
 * illustration (output, a fragment, a command against an installation of your own) and is not run.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import GithubSlugger from 'github-slugger'
import { ROOT } from '../cli/processes.ts'

/** The pages, as paths from the repository's root: README.md first, then docs/*.md by name. */
export function docPages(): string[] {
  const pages = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
  return ['README.md', ...pages.map((name) => `docs/${name}`)]
}

export interface CodeBlock {
  page: string
  /** 1-based line of the opening fence. */
  line: number
  language: string
  /** The file name after the language, when the block is runnable. */
  file: string | undefined
  code: string
}

/** Every fenced code block of a page's text. */
export function codeBlocks(page: string, text: string): CodeBlock[] {
  const blocks: CodeBlock[] = []
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)(?:[ \t]+(\S+))?[ \t]*$/.exec(lines[i] as string)
    if (open === null) continue
    const close = lines.findIndex((line, j) => j > i && line.startsWith('```'))
    if (close === -1) throw new Error(`${page}:${i + 1}: a code block that is never closed`)
    blocks.push({ page, line: i + 1, language: open[1] ?? '', file: open[2], code: `${lines.slice(i + 1, close).join('\n')}\n` })
    i = close
  }
  return blocks
}

/** The runnable blocks of every page (README.md and docs/*.md). */
export function runnableBlocks(): CodeBlock[] {
  return docPages()
    .flatMap((page) => codeBlocks(page, readFileSync(join(ROOT, page), 'utf8')))
    .filter((block) => block.file !== undefined)
}

/** The text of a page with its code blocks and inline code blanked (line numbers kept), so only prose is left. */
export function prose(text: string): string {
  let fenced = false
  return text
    .split('\n')
    .map((line) => {
      if (line.startsWith('```')) {
        fenced = !fenced
        return ''
      }
      return fenced ? '' : line.replace(/(`+)[\s\S]*?\1/g, (code) => ' '.repeat(code.length))
    })
    .join('\n')
}

export interface Link {
  line: number
  target: string
}

/** Every Markdown link and image of a page's prose: `[text](target)`, `![alt](target "title")`. */
export function links(text: string): Link[] {
  const found: Link[] = []
  prose(text)
    .split('\n')
    .forEach((line, index) => {
      for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ line: index + 1, target: match[1] as string })
    })
  return found
}

/** The anchors GitHub gives a page's headings (`## In a CI job` is `#in-a-ci-job`; a repeated one gets `-1`, `-2`). */
export function anchors(text: string): Set<string> {
  const slugger = new GithubSlugger()
  let fenced = false
  const found = new Set<string>()
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    // GitHub slugs the heading as rendered: code spans and emphasis lose their marks, links keep their text.
    if (heading !== null) found.add(slugger.slug((heading[1] as string).replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '')))
  }
  return found
}
