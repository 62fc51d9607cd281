/** An export that cannot be made as asked; the message says what to do. */
export class ExportError extends Error {
  override name = 'ExportError'
}
