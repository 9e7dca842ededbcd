import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'

/** Which Chromium a browser test runs: the machine's own, or the one shipped in the `@sparticuz/chromium` package. */
export type ChromiumSource = 'system' | 'bundled'

const SYSTEM_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']

/**
 * `FORCE_BUNDLED_CHROMIUM=1` runs the browser tests on the Chromium of `@sparticuz/chromium` even
 * where the machine has its own (and over `CHROMIUM_PATH`): `.ci/run` sets it, so CI checks what a
 * new user without a browser gets.
 */
export const FORCE_BUNDLED_VARIABLE = 'FORCE_BUNDLED_CHROMIUM'

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
const QUIET_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

// Flags @sparticuz/chromium recommends for AWS Lambda that a test on an ordinary machine must not have.
// `--single-process` runs the renderer inside the browser process, where closing a browser context
// kills the whole browser with SIGTRAP; Playwright's `browser.newPage()` gives each page a context of
// its own and closes it with the page, so the next test found the browser gone. The package needs the
// flag only where Lambda refuses the prctl call a multi-process Chromium makes; with `--no-sandbox` the
// same binary runs multi-process here. The web-security flags would let a page do what no user's
// browser allows (cross-origin reads, mixed content), so a browser test could pass that a user would fail.
const LAMBDA_ONLY_ARGS = new Set(['--single-process', '--disable-web-security', '--allow-running-insecure-content'])

/** Whether `FORCE_BUNDLED_CHROMIUM` asks for the bundled Chromium; a value other than 1/true/0/false is refused rather than guessed. */
export function bundledForced(): boolean {
  const value = (process.env[FORCE_BUNDLED_VARIABLE] ?? '').trim().toLowerCase()
  if (value === '' || value === '0' || value === 'false') return false
  if (value === '1' || value === 'true') return true
  throw new Error(`${FORCE_BUNDLED_VARIABLE} must be 1 or 0, not ${JSON.stringify(process.env[FORCE_BUNDLED_VARIABLE])}`)
}

/**
 * Unpacks the Chromium of `@sparticuz/chromium` into the temporary folder (once per machine: it
 * keeps `chromium` there and reuses it) and returns its path. Two test files unpacking at the same
 * time would run a half-written binary (spawn ETXTBSY), so the vitest global set-up calls this first.
 */
export async function bundledChromium(): Promise<{ executablePath: string; args: string[] }> {
  if (!BUNDLED_RUNS_HERE)
    throw new Error(
      `the Chromium of @sparticuz/chromium runs on Linux x64 only (this is ${process.platform} ${process.arch}); install Chromium or set CHROMIUM_PATH`,
    )
  const { default: bundled } = await import('@sparticuz/chromium')
  // The package is built for serverless hosts; software rendering is all a page test needs.
  bundled.setGraphicsMode = false
  const executablePath = await bundled.executablePath()
  const args = [...bundled.args.filter((arg) => !LAMBDA_ONLY_ARGS.has(arg)), ...QUIET_ARGS.filter((arg) => !bundled.args.includes(arg))]
  return { executablePath, args }
}

/**
 * Starts headless Chromium without root and without a download at test time: the bundled one when
 * `FORCE_BUNDLED_CHROMIUM=1`, else `CHROMIUM_PATH` when set, else the system's `chromium` when
 * there is one, else the Chromium that the `@sparticuz/chromium` dev dependency ships inside npm.
 * `source` forces one of the two.
 */
export async function launchChromium(source?: ChromiumSource): Promise<{ browser: Browser; source: ChromiumSource; executablePath: string }> {
  const wanted = source ?? (bundledForced() ? 'bundled' : undefined)
  const system = wanted === 'bundled' ? undefined : (process.env.CHROMIUM_PATH ?? systemChromium())
  if (system !== undefined) {
    return { browser: await chromium.launch({ executablePath: system, args: QUIET_ARGS }), source: 'system', executablePath: system }
  }
  if (wanted === 'system') throw new Error('no system Chromium on PATH')
  const { executablePath, args } = await bundledChromium()
  return { browser: await chromium.launch({ executablePath, args }), source: 'bundled', executablePath }
}
