// One shape for every `skill-kit` command, so that parsing, --help and usage
// errors behave the same everywhere.

import type { ParseArgsConfig } from 'node:util'
import type { CliIo } from './io'
import { parseArgs } from 'node:util'
import { UsageError } from './io'

/** The option table parseArgs takes. */
export type OptionsConfig = NonNullable<ParseArgsConfig['options']>

/** What parseArgs gives a command. */
export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>
  positionals: string[]
}

/** A `skill-kit` command. */
export interface Command {
  name: string
  /** One line for the command list: `search "<query>"   Rank documents …`. */
  summary: string
  /** The command's own help: its synopsis and options. */
  usage: string
  /** Options besides --help. */
  options: OptionsConfig
  /** Positional arguments the command takes at most (`Infinity`: any number). */
  maxPositionals: number
  /** Runs the command; resolves with the exit code. Expected failures throw a `CliError`. */
  run: (args: ParsedArgs, io: CliIo) => Promise<number> | number
}

/** The `--project <dir>` and `--root <dir>` options of the knowledge commands. */
export const PROJECT_OPTION = { project: { type: 'string' }, root: { type: 'string' } } as const satisfies OptionsConfig
/** The help lines of `--project` and `--root`. */
export const PROJECT_HELP = `  --project <dir>       The project folder, holding skill-kit.json, or a folder of
                        Markdown documents (default: the current folder, which must
                        hold a skill-kit.json)
  --root <dir>          For a folder of Markdown: where its index, cache and models
                        live, under <root>/.skill-kit/, as with the bundler plugin's
                        root (default: the current folder)`

/**
 * `--threshold -0.5` as `--threshold=-0.5`: parseArgs takes a value that
 * starts with a dash for an option of its own, but a negative number is what
 * a user means there.
 */
function joinNegativeNumbers(options: OptionsConfig, argv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      out.push(...argv.slice(i))
      break
    }
    const next = argv[i + 1]
    const name = arg.startsWith('--') ? arg.slice(2) : undefined
    if (name !== undefined && options[name]?.type === 'string' && next !== undefined && /^-(?:\d|\.\d)/.test(next)) {
      out.push(`${arg}=${next}`)
      i++
    }
    else {
      out.push(arg)
    }
  }
  return out
}

/** Parses a command's arguments; `undefined` when --help was asked for. Throws a `UsageError`. */
export function parseCommandArgs(command: Command, argv: readonly string[]): ParsedArgs | undefined {
  let parsed: { values: Record<string, unknown>, positionals: string[] }
  try {
    parsed = parseArgs({
      args: joinNegativeNumbers(command.options, argv),
      allowPositionals: true,
      strict: true,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
    })
  }
  catch (error) {
    // parseArgs names the offending option, e.g. "Unknown option '--fix'".
    throw new UsageError((error as Error).message)
  }
  if (parsed.values.help)
    return undefined
  if (parsed.positionals.length > command.maxPositionals)
    throw new UsageError(`Unexpected argument "${parsed.positionals[command.maxPositionals]}".`)
  return { values: parsed.values as ParsedArgs['values'], positionals: parsed.positionals }
}

/** A string option's value (parseArgs already rejected a missing value). */
export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name]
  return typeof value === 'string' ? value : undefined
}

/** A boolean option's value. */
export function flag(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true
}
