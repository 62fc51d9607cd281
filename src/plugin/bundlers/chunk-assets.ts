// Assets of builds that run in Node (or anywhere): their URLs are relative to
// the chunk that names them, never resolved through Vite's `base` (a site's
// URL, meaningless to a file on disk); and they are written even where Vite
// drops a server build's assets (`build.emitAssets` off), since Node reads
// them from beside the bundle.

import { join } from 'node:path'
import { writeFileAtomic } from '../../core/atomic'

const json = (value: unknown) => JSON.stringify(value)

/** What Rollup, Rolldown and Vite pass the `resolveFileUrl` hook. */
export interface FileUrlRequest {
  referenceId: string
  relativePath: string
  format: string
}

export class ChunkRelativeAssets {
  private readonly references = new Set<string>()
  /** Per build (Vite environment), each asset's reference and bytes. */
  private readonly emitted = new Map<string, { reference: string, source: Uint8Array }[]>()

  /** Records an asset `build` emitted. */
  add(build: string, reference: string, source: Uint8Array): void {
    this.references.add(reference)
    const list = this.emitted.get(build) ?? []
    list.push({ reference, source })
    this.emitted.set(build, list)
  }

  /** Forgets a build's assets, when it starts again. */
  reset(build: string): void {
    this.emitted.delete(build)
  }

  /** The `resolveFileUrl` hook: our assets relative to the chunk (`undefined` leaves the others, and other formats, to the bundler). */
  resolveFileUrl({ referenceId, relativePath, format }: FileUrlRequest): string | undefined {
    if (!this.references.has(referenceId))
      return undefined
    if (format === 'es')
      return `new URL(${json(relativePath)}, import.meta.url).href`
    // Rolldown leaves `import.meta.url` empty in CommonJS.
    if (format === 'cjs')
      return `require("node:url").pathToFileURL(require("node:path").join(__dirname, ${json(relativePath)})).href`
    return undefined
  }

  /** Vite's `writeBundle`: writes the assets of `build` that Vite dropped from the bundle into `dir`. */
  writeDropped(build: string, fileName: (reference: string) => string, dir: string, bundle: Record<string, unknown>): void {
    for (const { reference, source } of this.emitted.get(build) ?? []) {
      const name = fileName(reference)
      if (!(name in bundle))
        writeFileAtomic(join(dir, name), source)
    }
  }
}
