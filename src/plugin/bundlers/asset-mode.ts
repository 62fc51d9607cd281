// The ways bundlers take the files a generated module points at (snapshots,
// shards, models, query tables), as the adapters (`adapter.ts`) choose them,
// and how the fixed-name ways spell a file's URL at run time.

/** Writes a file under a fixed name, relative to the output folder. */
export type EmitFixed = (fileName: string, source: Uint8Array) => void

/** Where a build runs: browsers only (no Node code, no Node files), Node only (no ONNX Runtime Web), or either (a library). */
export type Platform = 'browser' | 'node' | 'any'

/** Where the module runs and how its bundler takes assets. */
export type AssetMode =
  /** Emitted assets, referenced by `import.meta.ROLLUP_FILE_URL_<reference>` (Rollup, Rolldown, Vite builds). */
  | { kind: 'emit', platform: Platform, emit: (fileName: string | undefined, name: string, source: Uint8Array) => string }
  /** `new URL(path, import.meta.url)`, which the bundler turns into an asset itself (webpack, rspack). */
  | { kind: 'url-asset', platform: Platform, emit: EmitFixed }
  /**
   * A file the bundler copies when a module imports it (its `file` loader: esbuild). `emit` is missing
   * without an output folder; `assetNames` places the snapshot, the anchor of the other files; `base`
   * is the bundle's own URL (`import.meta.url`, which the bundler may leave empty in CommonJS);
   * `bundler` names it in messages.
   */
  | { kind: 'file-loader', bundler: string, platform: Platform, emit: EmitFixed | undefined, assetNames: string, base: string }
  | { kind: 'dev-server', base: string, serve: (urlPath: string, file: string) => void }
  /** In place (the Vite dev server's SSR): the published files where they are. */
  | { kind: 'file' }

/** The binding of the snapshot's URL where the `file` loader copies it, which also locates the files written beside it. */
export const FILE_LOADER_SNAPSHOT_URL = 'snapshotUrl'

const json = (value: unknown) => JSON.stringify(value)

/** An expression of an emitted asset's URL (a string), from its reference (`emit` mode). */
export function emittedUrl(reference: string): string {
  return `import.meta.ROLLUP_FILE_URL_${reference}`
}

/** How a build writes files under fixed names, and an expression of such a file's URL at run time. */
export interface FixedOutput {
  emit: EmitFixed
  url: (fileName: string) => string
}

export function fixedOutput(mode: Extract<AssetMode, { kind: 'url-asset' | 'file-loader' }>): FixedOutput | { error: string } {
  if (mode.kind === 'url-asset') {
    // The public path is where webpack and rspack load chunks from (computed at run time with `publicPath: 'auto'`);
    // a relative one is relative to the page, as for chunks, and in Node to the entry (webpack's base URI, a `file:` URL).
    const base = mode.platform === 'browser' ? 'location.href' : '__webpack_base_uri__'
    return { emit: mode.emit, url: fileName => `new URL(__webpack_public_path__ + ${json(fileName)}, ${base})` }
  }
  if (!mode.emit)
    return { error: `includeModel with ${mode.bundler} writes the model into the output folder: set outdir.` }
  // The snapshot, which the `file` loader put at `assetNames` under outdir, locates outdir, wherever the chunk is.
  const folders = mode.assetNames.split('/').slice(0, -1).filter(part => part !== '.')
  if (folders.some(part => part === '..' || part.includes('[dir]')))
    return { error: `includeModel with ${mode.bundler} cannot find the output folder from assetNames "${mode.assetNames}": use one without [dir] or "..".` }
  const up = '../'.repeat(folders.length)
  return { emit: mode.emit, url: fileName => `new URL(${json(`${up}${fileName}`)}, new URL(${FILE_LOADER_SNAPSHOT_URL}, ${mode.base}))` }
}
