import { execFileSync, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { ROOT } from '../cli/processes.ts'

interface LockEntry {
  name?: string
  version?: string
  resolved?: string
  integrity?: string
  dev?: boolean
  devOptional?: boolean
  peer?: boolean
  optional?: boolean
  link?: boolean
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  [key: string]: unknown
}

interface Lock {
  packages: Record<string, LockEntry>
}

const projectLock = (): Lock => JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock
const projectManifest = () => JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> }

/** Where Node (and npm) finds `dep` when `from` requires it: its own node_modules, then each parent's, then the top. */
function locate(lock: Lock, from: string, dep: string): string | undefined {
  let base = from
  for (;;) {
    const candidate = base === '' ? `node_modules/${dep}` : `${base}/node_modules/${dep}`
    if (lock.packages[candidate] !== undefined) return candidate
    if (base === '') return undefined
    const parent = base.lastIndexOf('/node_modules/')
    base = parent === -1 ? '' : base.slice(0, parent)
  }
}

/**
 * Every lock entry the given top-level packages need, at the places the project's own tree has them.
 * An optional peer is not needed (vite names tsx, yaml and esbuild so): the project has them for its
 * own sake, and npm 10 would install every entry of the lock, so a consumer would get them too.
 */
function closure(lock: Lock, roots: string[]): Set<string> {
  const keep = new Set<string>()
  const visit = (key: string): void => {
    if (keep.has(key)) return
    keep.add(key)
    const entry = lock.packages[key] as LockEntry
    const peers = Object.keys(entry.peerDependencies ?? {}).filter((name) => entry.peerDependenciesMeta?.[name]?.optional !== true)
    for (const dep of new Set([...Object.keys({ ...entry.dependencies, ...entry.optionalDependencies }), ...peers])) {
      const found = locate(lock, key, dep)
      if (found !== undefined) visit(found)
    }
  }
  for (const root of roots) visit(`node_modules/${root}`)
  return keep
}

/** The tarball `npm pack` makes of this checkout (dist/ as `npm test` just built it; `prepare` is not run again). */
export function packProject(into: string): string {
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const [packed] = JSON.parse(out) as Array<{ filename: string }>
  return join(into, (packed as { filename: string }).filename)
}

/** Dev tools a consumer's project brings itself, in the versions this project tests with. */
const CONSUMER_TOOLS: readonly string[] = ['vitest', 'typescript', '@types/node']

/** A consumer's project: its folder, and what npm's install there printed at the warning level. */
export interface Consumer {
  dir: string
  installLog: string
}

/**
 * A new, plain JavaScript project in a temporary folder that depends on the packed tarball, with
 * vitest and TypeScript as its own dev tools (or the `tools` given), installed by `npm ci --offline`
 * (the `npm` on PATH, so the npm of the Node line a run puts first): from npm's local cache only,
 * never the network. Its lockfile pins every package at the version this checkout installed (so the
 * cache has it); the tarball is the only thing new.
 */
export function createConsumer(
  tarball: string,
  files: Record<string, string>,
  scripts: Record<string, string> = {},
  tools: readonly string[] = CONSUMER_TOOLS,
): Consumer {
  const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-consumer-'))
  const lock = projectLock()
  const manifest = projectManifest()
  const spec = `file:${tarball}`
  const devDependencies = Object.fromEntries(tools.map((name) => [name, lock.packages[`node_modules/${name}`]?.version as string]))
  const packages: Record<string, LockEntry> = {
    '': { name: 'consumer', version: '1.0.0', dependencies: { 'appdata-kit': spec }, devDependencies },
    'node_modules/appdata-kit': {
      version: manifest.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      dependencies: manifest.dependencies,
      bin: { 'appdata-kit': 'bin/appdata-kit.js' },
    },
  }
  const runtime = closure(lock, Object.keys(manifest.dependencies))
  const toolTree = closure(lock, [...tools])
  for (const key of new Set([...runtime, ...toolTree])) {
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = lock.packages[key] as LockEntry
    const name = entry.name ?? key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length)
    // npm fetches by this address when its cache lacks the integrity; offline, the cache must have it.
    entry.resolved ??= `https://registry.npmjs.org/${name}/-/${basename(name)}-${entry.version}.tgz`
    packages[key] = runtime.has(key) ? entry : { ...entry, dev: true }
  }
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module', scripts, dependencies: { 'appdata-kit': spec }, devDependencies }, null, 2)}\n`,
  )
  writeFileSync(
    join(dir, 'package-lock.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, null, 2)}\n`,
  )
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  // Warnings kept: what a team reads while installing (npm 11 names packages that run install scripts).
  const install = spawnSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--loglevel=warn'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 300_000,
    env: { ...process.env, npm_config_engine_strict: 'false' },
  })
  if (install.status !== 0) throw new Error(`npm ci in ${dir} exited ${install.status}:\n${install.stdout}${install.stderr}`)
  return { dir, installLog: `${install.stdout}${install.stderr}` }
}
