import { defineConfig } from 'vitest/config'

/**
 * Two tiers, both run by `npm test` (the README's command, the whole suite):
 * - `fast`: the pure rooms and the mock over HTTP in the test's own process; `npm run test:fast`, the
 *   inner loop (docs/tests.md gives its time).
 * - `slow`: what starts processes (the built command line, the packed package, npm), a browser, a
 *   million rows, or measures growth and the event loop over big inputs: the files and folders
 *   below, each because it does.
 * test/internals/tiers.test.ts holds the fast tier to starting no process. The files that measure
 * (MEASURED) run apart, after both tiers, one at a time.
 *
 * Both tiers share each worker's module cache between files (`isolate: false`): a file imports
 * Fastify, Ajv and the document's validators once a worker, not once a file, which took `npm run
 * test:fast` from 59 s to 26 s on two cores. It holds because no test file mocks a module, and those
 * that change a module's settings (`slicing`, a spy on `JSON.parse`) put them back after each test.
 * The files that measure keep a fresh process each: another file's heap would be collected in
 * their measure.
 */
export const SLOW_TIER = [
  // The built command line and its processes.
  'test/cli/**',
  'test/proxy/**',
  'test/upgrade/**',
  'test/usage/**',
  'test/usage-file/refusals.test.ts',
  'test/fixtures/rows-older-than-rules.test.ts',
  'test/http/start-mock.test.ts',
  'test/http/hostile-load.test.ts',
  // The packed package, npm and the build.
  'test/package/**',
  // A browser.
  'test/docs/**',
  'test/console/**',
  // A million rows.
  'test/state/scale.test.ts',
  // Documents generated and typed clients compiled by tools.
  'test/spec/**',
  // Big inputs, their growth from n to 8n and the event loop beside them; many generated cases.
  'test/http/error-path.test.ts',
  'test/http/invalid-bodies.test.ts',
  'test/http/big-saves.test.ts',
  'test/http/big-saves-plan.test.ts',
  'test/http/robustness.test.ts',
  'test/http/query-limits.test.ts',
  'test/control/rules-bounds.test.ts',
  'test/contracts/deviations.test.ts',
  'test/document/violations.test.ts',
  'test/state/snapshot-format.test.ts',
  'test/store/image.test.ts',
]

/**
 * The files that measure how the event loop fares beside big work, or how time grows from n to 8n
 * (monitorEventLoopDelay, ratios of medians): `npm test` runs them last and one at a time, since a
 * test file beside them on the other core (a million rows, a browser) stretches what they measure.
 */
export const MEASURED = [
  'test/control/rules-bounds.test.ts',
  'test/control/stubs.test.ts',
  'test/http/big-deletes.test.ts',
  'test/http/big-saves-plan.test.ts',
  'test/http/error-path.test.ts',
  'test/http/invalid-bodies.test.ts',
  'test/http/query-limits.test.ts',
  'test/proxy/stop.test.ts',
  'test/state/scale.test.ts',
  'test/upgrade/growth.test.ts',
]

const ALL = ['test/**/*.test.ts', 'examples/*/test/**/*.test.ts']

/** The test files a glob of SLOW_TIER names: a folder's `.test.ts` files, never its helpers. */
export const slowInclude = (globs: readonly string[]): string[] => globs.map((glob) => (glob.endsWith('/**') ? `${glob}/*.test.ts` : glob))

export default defineConfig({
  test: {
    // One fixed fast-check seed for every property (a random one under `npm run fuzz`).
    setupFiles: ['test/helpers/fast-check-setup.ts'],
    // The bundled Chromium is unpacked once, before the browser test files run side by side.
    globalSetup: ['test/helpers/unpack-chromium.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: run files in parallel but keep the heavy ones (browser, million rows) from starving each other.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'fast', include: ALL, exclude: [...SLOW_TIER, ...MEASURED, 'examples/**'], isolate: false } },
      { extends: true, test: { name: 'slow', include: [...slowInclude(SLOW_TIER), 'examples/*/test/**/*.test.ts'], exclude: MEASURED, isolate: false } },
      // After both, one file at a time: nothing else on the two cores while they measure.
      { extends: true, test: { name: 'measured', include: MEASURED, sequence: { groupOrder: 1 }, maxWorkers: 1, fileParallelism: false } },
    ],
  },
})
