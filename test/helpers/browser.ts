import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'

/** Which Chromium a browser test runs: the machine's own, or the one shipped in the `@sparticuz/chromium` package. */
export type ChromiumSource = 'system' | 'bundled'

const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']

/** The first Chromium on PATH, or undefined. */
export function systemChromium(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of SYSTEM_NAMES) {
      const candidate = join(dir, name)
      try {
        accessSync(candidate, constants.X_OK)
        return candidate
      } catch {
        // not here
      }
    }
  }
  return undefined
}

/** Where the Chromium inside `@sparticuz/chromium` runs: it ships Linux x64 binaries only. */
export const BUNDLED_RUNS_HERE = process.platform === 'linux' && process.arch === 'x64'

// No sandbox (CI may run as root) and no background traffic to hosts this machine cannot reach.
const QUIET_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/**
 * Starts headless Chromium without root and without a download at test time: `CHROMIUM_PATH`
 * when set, else the system's `chromium` when there is one, else the Chromium that the
 * `@sparticuz/chromium` dev dependency ships inside npm (unpacked to the temporary folder on first
 * use). `source` forces one of the two.
 */
export async function launchChromium(source?: ChromiumSource): Promise<{ browser: Browser; source: ChromiumSource; executablePath: string }> {
  const system = source === 'bundled' ? undefined : (process.env.CHROMIUM_PATH ?? systemChromium())
  if (system !== undefined) {
    return { browser: await chromium.launch({ executablePath: system, args: QUIET_ARGS }), source: 'system', executablePath: system }
  }
  if (source === 'system') throw new Error('no system Chromium on PATH')
  if (!BUNDLED_RUNS_HERE) throw new Error(`the Chromium of @sparticuz/chromium runs on Linux x64 only (this is ${process.platform} ${process.arch}); install Chromium or set CHROMIUM_PATH`)
  const { default: bundled } = await import('@sparticuz/chromium')
  // The package is built for serverless hosts; software rendering is all a page test needs.
  bundled.setGraphicsMode = false
  const executablePath = await bundled.executablePath()
  const browser = await chromium.launch({ executablePath, args: [...bundled.args, ...QUIET_ARGS.filter((arg) => !bundled.args.includes(arg))] })
  return { browser, source: 'bundled', executablePath }
}
