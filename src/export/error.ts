/** What an {@link ExportError} is about. */
export type ExportErrorCode =
  /** The destination exists: exports never overwrite. */
  | 'destination-exists'
  /** The destination is inside the knowledge folder. */
  | 'destination-inside'
  /** `includeModel` where there is no model to copy, or its files are missing. */
  | 'model-unavailable'
  /** An option the export cannot take (a mode, an output folder, a model for a routed export). */
  | 'invalid-options'
  /** The documents changed while they were exported. */
  | 'documents-changed'
  /** The knowledge base could not be built or routed. */
  | 'build-failed'
  /** A skill cannot be published in the well-known index (`agentSkills`): a name used twice, a bundled file that is no real file of its folder. */
  | 'skill-unpublishable'

/** An export that cannot be made as asked; the message says what to do. */
export class ExportError extends Error {
  override name = 'ExportError'
  constructor(readonly code: ExportErrorCode, message: string) {
    super(message)
  }
}
