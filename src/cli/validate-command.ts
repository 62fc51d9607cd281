import type { Command } from './command'
import { stringOption, flag } from './command'
import { PathError } from './find-skills'
import { CliError, EXIT_USAGE, UsageError } from './io'
import { validate } from './validate'

/** `skill-kit validate [paths...]`: lints skills with the plugin's rules. */
export const validateCommand: Command = {
  name: 'validate',
  summary: `  validate [paths...]   Check SKILL.md and *.skill.md files (default: the current folder)
    --strict            A name that differs from its folder or file is an error
    --format <f>        text (default) or json`,
  usage: `Usage: skill-kit validate [paths...] [options]

Checks the SKILL.md and *.skill.md files under the given files and folders
(default: the current folder). Exit code 1 when any file has an error.

Options:
  --strict              A name that differs from its folder or file is an error
  --format <f>          text (default) or json`,
  options: { strict: { type: 'boolean' }, format: { type: 'string' } },
  maxPositionals: Infinity,
  run(args, io) {
    const format = stringOption(args, 'format') ?? 'text'
    if (format !== 'text' && format !== 'json')
      throw new UsageError(`--format must be text or json, got "${format}".`)
    try {
      const result = validate(args.positionals, { strict: flag(args, 'strict'), format })
      io.out(result.stdout)
      return result.exitCode
    }
    catch (error) {
      // A path that does not exist or holds no skill: nothing was checked.
      if (error instanceof PathError)
        throw new CliError(error.message, EXIT_USAGE)
      throw error
    }
  },
}
