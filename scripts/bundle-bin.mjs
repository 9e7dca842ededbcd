// The command line as a few bundled files (dist/bin/), so `npx appdata-kit mock` loads a handful of
// modules instead of several hundred: resolving and reading each file is most of a start.
// Run by `npm run build` (scripts/build.mjs) after tsc. Each command stays in a chunk of its own (code splitting), so
// `--version` or `mock` never parses the code of `verify` or `capture`.
import { build } from 'esbuild'
import { rmSync } from 'node:fs'
import { join } from 'node:path'

// The compiled tree's root: dist/, or the folder scripts/build.mjs builds in before it becomes dist/.
const distRoot = process.argv[2] ?? new URL('../dist/', import.meta.url).pathname
const outdir = join(distRoot, 'bin')
rmSync(outdir, { recursive: true, force: true })
await build({
  // The proxy's judging thread is an entry of its own: a worker starts from a file, found beside the
  // chunk that starts it (src/commands/proxy/judge-thread.ts looks for judge-worker.mjs there).
  entryPoints: {
    main: new URL('../src/commands/cli/main.ts', import.meta.url).pathname,
    'judge-worker': new URL('../src/commands/proxy/judge-worker.ts', import.meta.url).pathname,
  },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  outExtension: { '.js': '.mjs' },
  // CommonJS dependencies call require() for Node's own modules; an ES module has none of its own.
  banner: { js: "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);" },
  // Loaded from node_modules as they are, and only when asked for (the docs page, a terminal's log
  // format, a self-signed certificate, the YAML document): Swagger UI reads its assets and
  // package.json next to its own code, and yaml's CommonJS build loses its named exports when a
  // bundle imports it dynamically.
  external: ['@fastify/swagger', '@fastify/swagger-ui', 'pino-pretty', 'selfsigned', 'yaml'],
  sourcemap: true,
  logLevel: 'warning',
})
