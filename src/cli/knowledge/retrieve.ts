import type { KnowledgeProject } from '../../knowledge/project'
import type { PublishedIndex } from '../../knowledge/publish'
import type { Command } from '../command'
import { KnowledgeError } from '../../runtime/knowledge/knowledge'
import { PROJECT_HELP, PROJECT_OPTION } from '../command'
import { CliError, UsageError } from '../io'
import { publishedKnowledgeBase } from './base'
import { freshIndex, openCliProject } from './project'

/**
 * A document's body from a published index, as `skill-kit retrieve` prints
 * it; an unknown ID is a `CliError` suggesting close IDs ("Did you mean …?"),
 * an ambiguous one names its case-only twins.
 */
export async function retrievePublished(project: KnowledgeProject, published: PublishedIndex, id: string): Promise<string> {
  try {
    return await publishedKnowledgeBase(project, published).retrieve(id)
  }
  catch (error) {
    if (error instanceof KnowledgeError)
      throw new CliError(error.message)
    throw error
  }
}

/** `skill-kit retrieve <id>`: a document's complete body, as published with the index. */
export const retrieveCommand: Command = {
  name: 'retrieve',
  summary: '  retrieve <id>         Print a document of the published index',
  usage: `Usage: skill-kit retrieve <id> [options]

Prints the complete body of a document of the published index (an ID from
"skill-kit search"). An ID matches ignoring case when only one document's
does (MD045 finds md045); IDs that differ only in case are all named. The
index must be up to date with the documents.

Options:
${PROJECT_HELP}`,
  options: { ...PROJECT_OPTION },
  maxPositionals: 1,
  async run(args, io) {
    const id = args.positionals[0]
    if (id === undefined || id === '')
      throw new UsageError('retrieve needs a document ID, e.g. skill-kit retrieve restore-backup.')
    const project = openCliProject(args, io)
    const body = await retrievePublished(project, freshIndex(project), id)
    io.out(body.endsWith('\n') ? body : `${body}\n`)
    return 0
  },
}
