import { createHash } from 'node:crypto'

/** SHA-256 of `parts`, each followed by a NUL byte, so that ('ab', 'c') and ('a', 'bc') differ. */
function digest(parts: readonly (string | Uint8Array)[]) {
  const h = createHash('sha256')
  for (const part of parts) {
    h.update(part)
    h.update('\0')
  }
  return h
}

/** A short, stable content hash (SHA-256, base64url, 22 chars). */
export function hash(...parts: (string | Uint8Array)[]): string {
  return digest(parts).digest('base64url').slice(0, 22)
}

/** The whole SHA-256 of `parts` (as {@link hash} separates them), in hex: for fingerprints that name exactly what they hash. */
export function sha256(...parts: (string | Uint8Array)[]): string {
  return digest(parts).digest('hex')
}
