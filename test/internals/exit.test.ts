/** exitCodeOf: the exit code every command of `appdata-kit` ends an error with, the mock's included. */
import { Command, CommanderError } from 'commander'
import { describe, expect, it } from 'vitest'
import { ConfigError, EXIT, exitCodeOf } from '../../src/cli-base/exit.ts'
import { positiveInteger } from '../../src/commands/cli/connection.ts'

/** What a command's parse throws for these arguments, with commander's output kept off the terminal. */
function thrownBy(argv: string[]): unknown {
  const command = new Command('probe')
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
    .helpOption('-h, --help')
    .version('1.0.0', '-v, --version')
    .option('--timeout <ms>', 'a whole number', positiveInteger('--timeout'))
  try {
    command.parse(argv, { from: 'user' })
  } catch (error) {
    return error
  }
  throw new Error(`parsing ${argv.join(' ')} threw nothing`)
}

describe('exitCodeOf', () => {
  it('keeps the codes 0 ok, 1 failed, 2 usage', () => {
    expect(EXIT).toEqual({ ok: 0, failed: 1, usage: 2 })
  })

  it('ends --help and --version with 0', () => {
    for (const argv of [['--help'], ['--version']]) {
      const error = thrownBy(argv)
      expect(error).toBeInstanceOf(CommanderError)
      expect(exitCodeOf(error)).toBe(0)
    }
  })

  it('ends an unknown flag, a missing value and a refused value with 2', () => {
    for (const argv of [['--no-such-flag'], ['--timeout'], ['--timeout', 'soon']]) expect(exitCodeOf(thrownBy(argv)), argv.join(' ')).toBe(2)
  })

  it('ends a ConfigError with 2', () => {
    expect(exitCodeOf(new ConfigError('--port must be a whole number'))).toBe(2)
  })

  it('ends anything else with 1', () => {
    expect(exitCodeOf(new Error('the port is in use'))).toBe(1)
    expect(exitCodeOf('a thrown text')).toBe(1)
    expect(exitCodeOf(undefined)).toBe(1)
  })
})
