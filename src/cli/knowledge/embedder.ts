import type { ModelConfig } from '../../knowledge/config'
import type { Embedder } from '../../knowledge/embedder'
import { ModelNotAvailableError } from '../../knowledge/embedder-files'
import { projectEmbedder } from '../../knowledge/project'
import { TransformersMissingError } from '../../knowledge/transformers'
import { CliError } from '../io'

/**
 * The project's embedder. Failing to load it is the user's to fix (no model
 * files offline, no network, a model that is not a sentence embedder), so
 * it is a `CliError` with the reason, not a stack trace; so is a missing
 * Transformers.js, with the command that installs it.
 */
export async function loadEmbedder(model: ModelConfig, offline: boolean): Promise<Embedder> {
  try {
    return await projectEmbedder(model, { offline })
  }
  catch (error) {
    if (error instanceof ModelNotAvailableError || error instanceof TransformersMissingError)
      throw new CliError(error.message)
    throw new CliError(`Cannot load the embedding model ${model.id} (revision ${model.revision}, ${model.dtype}): ${(error as Error).message}`)
  }
}
