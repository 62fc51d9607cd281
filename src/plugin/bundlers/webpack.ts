// webpack and rspack (which follows webpack): `new URL(path, import.meta.url)`
// becomes an asset, emitted through the loader; dependencies go to the loader
// (files, folders, missing paths) or, from `buildStart`, to the compilation;
// progress through the infrastructure logger; `virtual:` is a URL scheme they
// never resolve through plugins; an error of `buildStart` is recorded in the
// compilation, since a thrown one would end `--watch` for good.

import type { UnpluginBuildContext } from 'unplugin'
import type { HookContext } from '../kind'
import type { BundlerAdapter } from './adapter'
import type { EmitFixed, Platform } from './asset-mode'
import { Buffer } from 'node:buffer'
import { existsSync } from 'node:fs'
import { genericAdapter, metaWatchMode } from './generic'
import { rewriteVirtualScheme } from './virtual-scheme'

/** The name webpack and rspack print before the plugin's lines, and that `infrastructureLogging.debug` filters on. */
export const LOGGER_NAME = 'unplugin-skill-kit'

/** What the plugin needs of a webpack or rspack loader context. */
interface WebpackLoaderContext {
  addDependency: (file: string) => void
  addContextDependency: (dir: string) => void
  addMissingDependency: (path: string) => void
}

/** The native context, where it is webpack's or rspack's. */
function webpackContext(context: UnpluginBuildContext) {
  const native = context.getNativeBuildContext?.()
  return native?.framework === 'webpack' || native?.framework === 'rspack' ? native : undefined
}

/** webpack's and rspack's platform of the target (`target: 'node'`, `'web'`, …). */
function webpackPlatform(context: UnpluginBuildContext): Platform {
  const loader = webpackContext(context)?.loaderContext
  const platform = (loader as { _compiler?: { platform?: { web?: boolean | null, node?: boolean | null } } } | undefined)?._compiler?.platform
  if (platform?.node && !platform.web)
    return 'node'
  return platform?.web && !platform.node ? 'browser' : 'any'
}

/**
 * Emits through the loader, not the compilation: the module then carries its
 * files, which webpack and rspack emit again when they reuse it from a cache
 * (watch mode, persistent cache). `minimized` keeps minifiers off ONNX
 * Runtime's `.mjs`, `immutable` says the names are versioned.
 */
function loaderEmitter(context: UnpluginBuildContext): EmitFixed {
  return (fileName, source) => {
    const loader = webpackContext(context)?.loaderContext
    if (!loader)
      throw new Error(`unplugin-skill-kit cannot emit ${fileName} outside a loader.`)
    loader.emitFile(fileName, Buffer.from(source.buffer, source.byteOffset, source.byteLength), undefined, { immutable: true, minimized: true })
  }
}

export function webpackAdapter(name: 'webpack' | 'rspack'): BundlerAdapter {
  const generic = genericAdapter(name)
  return {
    ...generic,
    resolvesQueriedFiles: true,
    progress(context) {
      const native = webpackContext(context)
      if (!native)
        return undefined
      const logger = native.compiler.getInfrastructureLogger(LOGGER_NAME)
      return line => logger.info(line)
    },
    watchSession(context) {
      if (metaWatchMode(context))
        return true
      const native = webpackContext(context)
      return Boolean(native && (native.compiler as { watchMode?: boolean }).watchMode)
    },
    watchDependencies(context, devServer, dependencies) {
      const loader = webpackContext(context)?.loaderContext as WebpackLoaderContext | undefined
      if (!loader)
        return generic.watchDependencies(context, devServer, dependencies)
      const { files, dirs } = dependencies
      // What does not exist yet is a missing dependency, so that creating it rebuilds.
      for (const file of files.filter(file => existsSync(file)))
        loader.addDependency(file)
      for (const dir of dirs.filter(dir => existsSync(dir)))
        loader.addContextDependency(dir)
      for (const path of [...files, ...dirs].filter(path => !existsSync(path)))
        loader.addMissingDependency(path)
    },
    watchBuildStartSources(context, files, dirs) {
      const compilation = webpackContext(context)?.compilation
      if (!compilation)
        return generic.watchBuildStartSources(context, files, dirs)
      for (const folder of dirs)
        compilation.contextDependencies.add(folder)
      for (const file of files)
        (existsSync(file) ? compilation.fileDependencies : compilation.missingDependencies).add(file)
    },
    assetMode: context => ({ kind: 'url-asset', platform: webpackPlatform(context), emit: loaderEmitter(context) }),
    buildOutput(context) {
      const compilation = webpackContext(context)?.compilation
      if (!compilation)
        return generic.buildOutput(context)
      // Marked minimized: a production build's minifier would otherwise rewrite search.mjs (and move its licence out).
      const { RawSource } = compilation.compiler.webpack.sources
      return {
        emit: (fileName, source) => compilation.emitAsset(fileName, new RawSource(typeof source === 'string' ? source : Buffer.from(source)), { minimized: true }),
        outputDir: compilation.outputOptions.path ?? undefined,
      }
    },
    recordBuildStartError(context, error) {
      const compilation = webpackContext(context)?.compilation
      if (!compilation)
        return false
      compilation.errors.push(error as never)
      return true
    },
    hooks: ({ virtualId }) => ({ [name]: (compiler: Parameters<typeof rewriteVirtualScheme>[0]) => rewriteVirtualScheme(compiler, virtualId) }),
  }
}
