import type { Embedder } from '../../knowledge/embedder'
import type { EmbeddedProject } from '../../knowledge/project'
import { ModelNotAvailableError } from '../../knowledge/embedder-files'
import { ModelDownloadError } from '../../knowledge/model-download'
import { projectCommand, projectEmbedder } from '../../knowledge/project'
import { EmbeddingServerError } from '../../knowledge/server-embedder'
import { assertTransformersInstalled, TransformersMissingError } from '../../knowledge/transformers'
import { CliError } from '../io'

/**
 * The project's embedder. Failing to load it is the user's to fix (no model
 * files offline, no network, a model that is not a sentence embedder), so
 * it is a `CliError` with the reason and the command that prepares the
 * model for this project, not a stack trace; so is a missing Transformers.js,
 * with the command that installs it.
 */
export async function loadEmbedder(project: EmbeddedProject, offline: boolean, remoteHost?: string): Promise<Embedder> {
  const { model } = project.config
  try {
    return await projectEmbedder(model, { offline, remoteHost, fixCommand: projectCommand(project, 'model') })
  }
  catch (error) {
    if (error instanceof ModelNotAvailableError || error instanceof ModelDownloadError || error instanceof TransformersMissingError || error instanceof EmbeddingServerError)
      throw new CliError(error.message)
    throw new CliError(`Cannot load the embedding model ${model.id} (revision ${model.revision}, ${model.dtype}): ${(error as Error).message}`)
  }
}

/**
 * Fails with the command that installs Transformers.js when it is missing, so
 * that a command says so before announcing work it cannot do.
 */
export function requireTransformers(): void {
  try {
    assertTransformersInstalled()
  }
  catch (error) {
    throw error instanceof TransformersMissingError ? new CliError(error.message) : error
  }
}
