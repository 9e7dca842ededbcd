// The vitest configuration of `npm run mutate` (scripts/mutate.mjs): the project's own, run inside Stryker's
// sandbox (a copy of the checkout; this file is copied with it, so the root below is the sandbox's), with its
// global set-up (Chromium unpacked once, before the workers start: the proxy's reports are read in it).
// Test files share their workers' module cache (isolate: false): a mutant run imports the code once, not
// once a file, which halves a run of eight store files on one core (39 s to 21 s). No test file a run picks
// mocks a module or changes another's globals; a dry run that fails says so before any mutant runs.
// APPDATA_KIT_IN_PROCESS_UNDER_MUTATION: helpers that start the built bin as a process (upgrade's, the
// proxy's) run the command in the test's process instead, where the mutants are (test/cli/processes.ts).
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import base from '../../vitest.config.ts'

export default defineConfig({
  ...base,
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: { ...base.test, isolate: false, env: { ...base.test?.env, APPDATA_KIT_IN_PROCESS_UNDER_MUTATION: '1' } },
})
