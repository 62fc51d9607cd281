import type { UnpluginFactory, UnpluginMessage } from 'unplugin'
import type { Diagnostic } from '../core/diagnostics'
import type { Options } from './options'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, relative, resolve } from 'node:path'
import { createUnplugin } from 'unplugin'
import { codeFrame, formatDiagnostic } from '../core/diagnostics'
import { SkillLoader } from '../skill/load'
import { generateModule } from './codegen'
import { canonicalId, parseSkillId } from './ids'
import { createFileFilter } from './options'

export type { FilterPattern, Options } from './options'

const MARKDOWN_ID = /\.md(?:\?.*)?$/i

/**
 * What `load` returns after `this.error`. Rollup and Vite throw there, but
 * esbuild and webpack only record the error, and would otherwise drop it
 * (esbuild) or parse the raw Markdown as JavaScript (webpack, rspack).
 */
const FAILED = { code: '' }

/** Where generated modules import the runtime from: this package's own, so versions always match. */
function runtimePath(): string {
  return createRequire(import.meta.url).resolve('unplugin-skill-kit/runtime').replace(/\\/g, '/')
}

/** A diagnostic as a bundler message: location in the text (webpack drops `loc`) and a code frame. */
function toMessage(d: Diagnostic, source: string, relativize: (file: string) => string): UnpluginMessage {
  return {
    message: `${formatDiagnostic(d, relativize)}\n${codeFrame(source, d)}`,
    id: d.file,
    loc: { file: d.file, line: d.line, column: d.column },
  }
}

export const unpluginFactory: UnpluginFactory<Options | undefined> = (options = {}) => {
  let root = resolve(options.root ?? process.cwd())
  let filter = createFileFilter(options.include, options.exclude, root)
  const loader = new SkillLoader({ strict: options.strict, onInvalid: options.onInvalid })
  const relativize = (file: string) => relative(root, file).replace(/\\/g, '/') || file
  let runtime: string | undefined
  /** Files whose warnings this build has shown, so `?cover` and `?meta` of one skill warn once. */
  const warned = new Set<string>()

  return {
    name: 'unplugin-skill-kit',
    enforce: 'pre',

    buildStart() {
      warned.clear()
    },

    resolveId: {
      filter: { id: MARKDOWN_ID },
      async handler(source, importer) {
        const parsed = parseSkillId(source)
        if (!parsed)
          return null
        let file = parsed.file
        if (file.startsWith('.')) {
          file = resolve(importer ? dirname(importer.split('?')[0]!) : root, file)
        }
        else if (isAbsolute(file)) {
          // Vite reads `/skills/x/SKILL.md` as relative to its root.
          if (!existsSync(file) && existsSync(join(root, file)))
            file = join(root, file)
        }
        else {
          // Aliases and packages: only Rollup-like bundlers expose `this.resolve`; elsewhere the bundler resolves.
          const context = this as { resolve?: (id: string, importer?: string, options?: { skipSelf: boolean }) => Promise<{ id: string } | null> }
          const resolved = await context.resolve?.(file, importer, { skipSelf: true })
          if (!resolved)
            return null
          file = resolved.id.split('?')[0]!
        }
        if (!filter(file) || !existsSync(file))
          return null
        const query = source.includes('?') ? source.slice(source.indexOf('?')) : ''
        const id = parsed.query.kind === 'invalid' ? file + query : canonicalId(file, parsed.query)
        // Answering an id with itself makes webpack resolve it again, forever.
        return id === source ? null : id
      },
    },

    load: {
      filter: { id: MARKDOWN_ID },
      handler(id) {
        const parsed = parseSkillId(id)
        if (!parsed || !filter(parsed.file))
          return null
        if (parsed.query.kind === 'invalid') {
          this.error(`${relativize(parsed.file)}: ${parsed.query.reason}`)
          return FAILED
        }
        const { compiled, dependencies } = loader.load(parsed.file)
        for (const dependency of dependencies)
          this.addWatchFile(dependency)

        if (compiled.failed) {
          const errors = compiled.diagnostics.filter(d => d.severity === 'error').length
          const report = compiled.diagnostics.map(d => toMessage(d, compiled.source, relativize).message).join('\n\n')
          const first = compiled.diagnostics.find(d => d.severity === 'error')!
          this.error({
            message: `Invalid skill ${relativize(compiled.file)} (${errors} error${errors === 1 ? '' : 's'}). Fix them, or set onInvalid: 'fallback' to load it whole:\n\n${report}`,
            id: compiled.file,
            loc: { file: compiled.file, line: first.line, column: first.column },
          })
          return FAILED
        }
        if (!warned.has(compiled.file)) {
          warned.add(compiled.file)
          compiled.diagnostics.forEach(d => this.warn(toMessage(d, compiled.source, relativize)))
        }

        const generated = generateModule(compiled, parsed.query, { runtime: () => (runtime ??= runtimePath()), relativize })
        if ('error' in generated) {
          this.error(`${relativize(compiled.file)}: ${generated.error}`)
          return FAILED
        }
        return { code: generated.code, map: null }
      },
    },

    vite: {
      configResolved(config) {
        if (options.root)
          return
        root = config.root
        filter = createFileFilter(options.include, options.exclude, root)
      },
    },

    esbuild: {
      onResolveFilter: MARKDOWN_ID,
      onLoadFilter: MARKDOWN_ID,
      loader: 'js',
    },
  }
}

export const unplugin = /* #__PURE__ */ createUnplugin(unpluginFactory)

export default unplugin
