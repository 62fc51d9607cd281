import type { Command } from './command'
import type { CliIo } from './io'
import { disposeProjectEmbedders } from '../knowledge/project'
import { parseCommandArgs } from './command'
import { fileSystemMessage } from './fs-error'
import { evalCommand } from './eval'
import { CliError, EXIT_FAILURE, EXIT_USAGE, processIo, UsageError } from './io'
import { buildCommand } from './knowledge/build'
import { exportCommand } from './knowledge/export'
import { initCommand } from './knowledge/init'
import { modelCommand } from './knowledge/model'
import { retrieveCommand } from './knowledge/retrieve'
import { searchCommand } from './knowledge/search'
import { statusCommand } from './knowledge/status'
import { watchCommand } from './knowledge/watch'
import { mcpCommand } from './mcp/command'
import { validateCommand } from './validate-command'

const COMMANDS: readonly Command[] = [validateCommand, initCommand, buildCommand, searchCommand, retrieveCommand, statusCommand, watchCommand, modelCommand, exportCommand, evalCommand, mcpCommand]

const USAGE = `Usage: skill-kit <command> [options]

Commands:
${COMMANDS.map(c => c.summary).join('\n')}

Knowledge commands take --project <dir> (a project, or a folder of Markdown
with --root <dir>; default: the current folder) and print JSON or document
text on stdout, diagnostics on stderr.
Run "skill-kit <command> --help" for a command's options.

Options:
  -h, --help            Show this help`

/**
 * Runs the `skill-kit` command line; resolves with the exit code: 0, 1 when
 * the work failed, 2 when the command line is wrong.
 */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv
  if (name === '-h' || name === '--help') {
    io.out(`${USAGE}\n`)
    return 0
  }
  if (name === undefined) {
    io.err(`${USAGE}\n`)
    return EXIT_USAGE
  }
  const command = COMMANDS.find(c => c.name === name)
  if (!command) {
    io.err(`Unknown command "${name}".\n\n${USAGE}\n`)
    return EXIT_USAGE
  }
  try {
    const args = parseCommandArgs(command, rest)
    if (!args) {
      io.out(`${command.usage}\n`)
      return 0
    }
    return await command.run(args, io)
  }
  catch (error) {
    // A path the user gave that cannot be read or written: the path and the fix, never a stack trace.
    const fileSystem = fileSystemMessage(error)
    if (fileSystem !== undefined) {
      io.err(`skill-kit ${name}: ${fileSystem}\n`)
      return EXIT_FAILURE
    }
    if (!(error instanceof CliError))
      throw error
    io.err(`skill-kit ${name}: ${error.message}\n${error instanceof UsageError ? `\n${command.usage}\n` : ''}`)
    return error.exitCode
  }
  finally {
    // A loaded ONNX session keeps native threads alive: release it so the process exits now.
    await disposeProjectEmbedders()
  }
}
