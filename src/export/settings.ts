// What an exported semantic skill's search script reads: `index/settings.json`.
// Shared by the exporter, which writes it, and the script, which is bundled
// with it; no imports, so the script stays self-contained.

/** Where the settings are, relative to the export's folder. */
export const SETTINGS_FILE = 'index/settings.json'

/** The embedding server that embedded the index, which embeds queries too when the export has no model of its own. Never a key. */
export interface ExportedServer {
  /** The API's base URL, without credentials. */
  baseUrl: string
  /** The environment variable holding the API key. */
  apiKeyEnv: string
  dimensions?: number
}

/** `index/settings.json` of a semantic export. Every path is relative to the export's folder. */
export interface ExportSettings {
  format: 1
  /** The knowledge base's name, in messages. */
  name: string
  /** The snapshot (vectors, metadata, lexical index). */
  snapshot: string
  /** The documents' bodies as published with the snapshot (`{ format, documents: [{ id, path, body }] }`). */
  documents: string
  /** Search defaults of the project (`search` of skill-kit.json). */
  search: { topK: number, threshold: number }
  /** The model the snapshot was built with (what the query embedder needs), or `false`: no vectors, lexical search only. */
  model: { id: string, revision: string, dtype: string, maxTokens: number, queryPrefix: string, server?: ExportedServer } | false
  /** The folder that holds `<model id>/` (`models` with --include-model), or `null`: the model is not in the export. */
  modelFolder: string | null
}
