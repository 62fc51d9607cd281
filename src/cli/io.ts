// What a command writes to and how it fails. Commands never call process.exit:
// they return an exit code, so the CLI can release the embedding model first
// and the tests can run commands in-process when they want to.

/** Where a command writes. */
export interface CliIo {
  out: (text: string) => void
  err: (text: string) => void
  /** stderr is a terminal: progress bars may redraw a line there. */
  errIsTTY: boolean
}

/** The process's own streams. */
export function processIo(): CliIo {
  return {
    out: text => process.stdout.write(text),
    err: text => process.stderr.write(text),
    errIsTTY: process.stderr.isTTY === true,
  }
}

/** Exit code of a failure of the work (invalid documents, a stale index, no model). */
export const EXIT_FAILURE = 1
/** Exit code of a command line that makes no sense. */
export const EXIT_USAGE = 2

/**
 * An expected failure: its message goes to stderr as it is (no stack trace)
 * and the process exits with `exitCode`.
 */
export class CliError extends Error {
  override name = 'CliError'
  constructor(message: string, readonly exitCode: number = EXIT_FAILURE) {
    super(message)
  }
}

/** A command line the command cannot run: exit 2, with the command's usage. */
export class UsageError extends CliError {
  override name = 'UsageError'
  constructor(message: string) {
    super(message, EXIT_USAGE)
  }
}

/** Pretty JSON with a final newline: what every knowledge command prints on stdout. */
export function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}
