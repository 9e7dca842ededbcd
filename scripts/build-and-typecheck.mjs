// `npm test`'s first step: the build (scripts/build.mjs, which type-checks src/ as it compiles) and the
// type check of the whole tree (`tsc --noEmit -p .`, tests and examples too) side by side, one a core,
// instead of one after the other (about 14 s and 17 s on two cores). Each one's output is printed whole
// when it ends, never interleaved; the step fails when either does, after both have ended.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

const root = fileURLToPath(new URL('..', import.meta.url))
const steps = [
  { name: 'build', args: [join(root, 'scripts/build.mjs')] },
  { name: 'type check', args: [join(root, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', root] },
]

const results = await Promise.all(
  steps.map(
    ({ name, args }) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
        let output = ''
        child.stdout.on('data', (chunk) => (output += chunk))
        child.stderr.on('data', (chunk) => (output += chunk))
        child.on('error', (error) => resolve({ name, code: 1, output: `${output}${error.message}\n` }))
        child.on('close', (code, signal) => resolve({ name, code: code ?? 1, output: signal === null ? output : `${output}ended by ${signal}\n` }))
      }),
  ),
)
for (const { name, code, output } of results) {
  if (output !== '') process.stdout.write(output.endsWith('\n') ? output : `${output}\n`)
  if (code !== 0) console.error(`npm test: the ${name} failed (exit ${code})`)
}
process.exitCode = results.some(({ code }) => code !== 0) ? 1 : 0
