import type { Target } from '../skill/targets'
import type { Command, ParsedArgs } from './command'
import { TARGETS } from '../skill/targets'
import { flag, stringOption } from './command'
import { PathError } from './find-skills'
import { CliError, EXIT_USAGE, UsageError } from './io'
import { validate } from './validate'

/** The targets of `--target`, repeated or comma-separated, in report order. */
function targetsOf(args: ParsedArgs): Target[] {
  // parseArgs gives an array for an option declared `multiple`.
  const raw: unknown = args.values.target
  const values = (Array.isArray(raw) ? raw as string[] : []).flatMap(v => v.split(',')).map(v => v.trim())
  for (const value of values) {
    if (!(TARGETS as readonly string[]).includes(value))
      throw new UsageError(`--target must be ${TARGETS.slice(0, -1).join(', ')} or ${TARGETS.at(-1)}, got "${value}".`)
  }
  return TARGETS.filter(t => values.includes(t))
}

/** Claude Code's fixed listing budget, when the environment sets one as Claude Code reads it. */
function claudeBudgetOf(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.SLASH_COMMAND_TOOL_CHAR_BUDGET
  if (raw === undefined || raw === '')
    return undefined
  if (!/^\d+$/.test(raw) || Number(raw) === 0)
    throw new UsageError(`SLASH_COMMAND_TOOL_CHAR_BUDGET must be a positive number of characters, got "${raw}".`)
  return Number(raw)
}

/** `skill-kit validate [paths...]`: lints skills with the plugin's rules. */
export const validateCommand: Command = {
  name: 'validate',
  summary: `  validate [paths...]   Check SKILL.md and *.skill.md files (default: the current folder)
    --strict            A name that differs from its folder or file is an error
    --target <t>        Also check what agentskills, claude or codex would reject or cut
    --format <f>        text (default) or json`,
  usage: `Usage: skill-kit validate [paths...] [options]

Checks the SKILL.md and *.skill.md files under the given files and folders
(default: the current folder). Exit code 1 when any file has an error.

Options:
  --strict              A name that differs from its folder or file is an error
  --target <t>          Also report what an agent or validator would reject or
                        cut: agentskills (the Agent Skills reference validator),
                        claude (Claude Code) or codex (Codex CLI), and the
                        folder's listing against their budgets. Repeat it or
                        separate targets with commas.
  --format <f>          text (default) or json`,
  options: { strict: { type: 'boolean' }, format: { type: 'string' }, target: { type: 'string', multiple: true } },
  maxPositionals: Infinity,
  run(args, io) {
    const format = stringOption(args, 'format') ?? 'text'
    if (format !== 'text' && format !== 'json')
      throw new UsageError(`--format must be text or json, got "${format}".`)
    try {
      const targets = targetsOf(args)
      const claudeBudget = targets.includes('claude') ? claudeBudgetOf(process.env) : undefined
      const result = validate(args.positionals, { strict: flag(args, 'strict'), format, targets, claudeBudget })
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
