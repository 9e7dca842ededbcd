import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    // One fixed fast-check seed for every property (a random one under `npm run fuzz`).
    setupFiles: ['test/helpers/fast-check-setup.ts'],
    // The bundled Chromium is unpacked once, before the browser test files run side by side.
    globalSetup: ['test/helpers/unpack-chromium.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: run files in parallel but keep the heavy ones (browser, million rows) from starving each other.
    maxWorkers: 2,
  },
})
