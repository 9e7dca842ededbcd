import { BUNDLED_RUNS_HERE, bundledChromium } from './browser.ts'

/**
 * Vitest global set-up: unpacks the Chromium of `@sparticuz/chromium` before the test files start in
 * parallel workers. On a fresh machine each browser test file would otherwise unpack it into the same
 * path at once, and one of them would start the binary while another still writes it.
 */
export default async function unpackChromium(): Promise<void> {
  if (BUNDLED_RUNS_HERE) await bundledChromium()
}
