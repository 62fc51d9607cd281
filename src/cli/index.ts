import { parseArgs } from 'node:util'
import { PathError } from './find-skills'
import { validate } from './validate'

const USAGE = `Usage: skill-kit <command> [options]

Commands:
  validate [paths...]   Check SKILL.md and *.skill.md files (default: the current folder)
    --strict            A name that differs from its folder or file is an error
    --format <f>        text (default) or json

Options:
  -h, --help            Show this help`

/** Runs the `skill-kit` command line; returns the exit code. */
export function run(argv: readonly string[], io = { out: (s: string) => process.stdout.write(s), err: (s: string) => process.stderr.write(s) }): number {
  const [command, ...rest] = argv
  if (command === '-h' || command === '--help') {
    io.out(`${USAGE}\n`)
    return 0
  }
  if (command === undefined) {
    io.err(`${USAGE}\n`)
    return 2
  }
  if (command !== 'validate') {
    io.err(`Unknown command "${command}".\n\n${USAGE}\n`)
    return 2
  }
  let parsed
  try {
    parsed = parseArgs({
      args: [...rest],
      allowPositionals: true,
      options: {
        strict: { type: 'boolean', default: false },
        format: { type: 'string', default: 'text' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    })
  }
  catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}\n`)
    return 2
  }
  if (parsed.values.help) {
    io.out(`${USAGE}\n`)
    return 0
  }
  const format = parsed.values.format
  if (format !== 'text' && format !== 'json') {
    io.err(`--format must be text or json, got "${format}".\n`)
    return 2
  }
  try {
    const result = validate(parsed.positionals, { strict: parsed.values.strict, format })
    io.out(result.stdout)
    return result.exitCode
  }
  catch (error) {
    if (!(error instanceof PathError))
      throw error
    io.err(`skill-kit validate: ${error.message}\n`)
    return 2
  }
}
