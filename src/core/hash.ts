import { createHash } from 'node:crypto'

/** A short, stable content hash (SHA-256, base64url, 22 chars). */
export function hash(...parts: (string | Uint8Array)[]): string {
  const h = createHash('sha256')
  for (const part of parts) {
    h.update(part)
    h.update('\0')
  }
  return h.digest('base64url').slice(0, 22)
}
