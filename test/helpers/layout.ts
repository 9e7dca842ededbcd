import type { Page } from 'playwright-core'

/** The window a report must fit: a laptop's. */
export const REPORT_WIDTH = 1280

/** What does not fit a window, as a browser laid the page out. */
export interface Misfits {
  /** How wide the page is (more than the window: it scrolls sideways). */
  pageWidth: number
  /** Header cells whose right edge lies past the window: `Count (1412 px)`. */
  columnsOutside: string[]
  /** Cells whose text runs past their own edges (clipped, or spilling over their neighbours): the start of their text. */
  clippedCells: string[]
}

/**
 * Lays a report out at `width` px with every `<details>` open (what a reader may open, measured
 * too), and says what does not fit: the page's own width, every table column's header cell past
 * the window, and every cell whose content is wider than the cell. A value may wrap, or scroll
 * inside an element of its own (a `<pre>` that scrolls holds its overflow): neither counts.
 */
export async function misfits(page: Page, width = REPORT_WIDTH): Promise<Misfits> {
  await page.setViewportSize({ width, height: 800 })
  return page.evaluate(() => {
    // The browser's own document (this file is typed without the DOM's names).
    type Box = { right: number }
    type Element = { textContent: string | null; scrollWidth: number; clientWidth: number; getBoundingClientRect(): Box; open?: boolean }
    const doc = (globalThis as unknown as { document: { documentElement: Element; querySelectorAll(selector: string): Element[] } }).document
    const view = (globalThis as unknown as { innerWidth: number }).innerWidth
    for (const details of doc.querySelectorAll('details')) details.open = true
    const text = (element: Element) => (element.textContent ?? '').trim().slice(0, 40)
    return {
      pageWidth: doc.documentElement.scrollWidth,
      columnsOutside: [...doc.querySelectorAll('th')]
        .filter((cell) => cell.getBoundingClientRect().right > view + 0.5)
        .map((cell) => `${text(cell)} (${Math.round(cell.getBoundingClientRect().right)} px)`),
      clippedCells: [...doc.querySelectorAll('td, th')].filter((cell) => cell.scrollWidth > cell.clientWidth + 1).map(text),
    }
  })
}
