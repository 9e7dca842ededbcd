import { CommanderError } from 'commander'

/**
 * The exit codes of every command of `appdata-kit`, `mock` included: 0 done (or `--help`,
 * `--version`), 1 failed (a contract, a start, a write), 2 a flag, variable or target the command
 * cannot use. One table, so that the commands and the mock cannot come to disagree.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const

/** A flag or variable a command (the mock's too) cannot use, or a start it makes impossible; its message names the flag. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/**
 * The exit code an error ends a command with: commander's after `--help` or `--version` 0, any
 * other of commander's (an unknown flag, a refused value) and a ConfigError 2, anything else 1.
 */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage
  if (error instanceof ConfigError) return EXIT.usage
  return EXIT.failed
}

/** Start-up failures (a bad fixture, a port in use) end the process with the reason in one line, not a stack. */
export function exitWith(error: unknown): never {
  process.stderr.write(`appdata-kit: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(EXIT.failed)
}
