/** Start-up failures (a bad fixture, a port in use) end the process with the reason in one line, not a stack. */
export function exitWith(error: unknown): never {
  process.stderr.write(`appdata-kit: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
}
