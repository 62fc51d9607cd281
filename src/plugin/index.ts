import type { UnpluginBuildContext, UnpluginContext, UnpluginFactory, UnpluginMessage } from 'unplugin'
import type { CompiledSkill } from '../skill/compile'
import type { Diagnostic } from '../core/diagnostics'
import type { FileUrlRequest } from './chunk-assets'
import type { ViteServe } from './knowledge-load'
import type { Options } from './options'
import type { InfoLogger } from './progress'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { createUnplugin } from 'unplugin'
import { codeFrame, formatDiagnostic } from '../core/diagnostics'
import { splitFrontmatter } from '../core/frontmatter'
import { discoverSkills } from '../skill/discover'
import { SkillLoader } from '../skill/load'
import { ChunkRelativeAssets } from './chunk-assets'
import { generateModule, generateRegistry } from './codegen'
import { canonicalId, parseSkillId } from './ids'
import { BODY_QUERY, KNOWLEDGE_PREFIX, knowledgeImportPath, knowledgeModuleId, KnowledgeService, parseKnowledgeModuleId } from './knowledge'
import { generateBodyModule } from './knowledge-codegen'
import { loadKnowledgeModule } from './knowledge-load'
import { createFileFilter, DEFAULT_SKILL_DIRS } from './options'
import { progressChannel } from './progress'

export type { FilterPattern, KnowledgeOptions, Options } from './options'

export const REGISTRY_ID = 'virtual:skill-kit/skills'
const ESBUILD_REGISTRY_FILE = '__skill-kit-skills__.js'
const OUR_IDS = /\.md(?:\?.*)?$|virtual:skill-kit\/|__skill-kit-skills__\.js$|\?knowledge(?:&.*)?$|skill-kit-knowledge[:_]/i

/**
 * What `load` returns after `this.error`. Rollup and Vite throw there, but
 * esbuild and webpack only record the error, and would otherwise drop it
 * (esbuild) or parse the raw Markdown as JavaScript (webpack, rspack).
 */
const FAILED = { code: '' }

/**
 * Where generated modules import the runtime from: this package's own, so
 * versions always match; its small entry beside `runtime.mjs`, so that apps
 * get the activation engine only when they import it.
 */
function runtimePath(entry = 'runtime-modules.mjs'): string {
  const runtime = createRequire(import.meta.url).resolve('unplugin-skill-kit/runtime')
  return join(dirname(runtime), entry).replace(/\\/g, '/')
}

/** A diagnostic as a bundler message: location in the text (webpack drops `loc`) and a code frame. */
function toMessage(d: Diagnostic, source: string, relativize: (file: string) => string): UnpluginMessage {
  return {
    message: `${formatDiagnostic(d, relativize)}\n${codeFrame(source, d)}`,
    id: d.file,
    loc: { file: d.file, line: d.line, column: d.column },
  }
}

export const unpluginFactory: UnpluginFactory<Options | undefined> = (options = {}, meta) => {
  // `\0` marks virtual ids for Rollup-like bundlers; in esbuild the registry is a (never written) file.
  const registryId = () => meta.framework === 'esbuild' ? ESBUILD_REGISTRY_FILE : `\0${REGISTRY_ID}`
  // esbuild prints its plugins' module ids into bundles: there they are relative to the root, so that no
  // build machine's folder reaches the output.
  const esbuild = meta.framework === 'esbuild'
  const splitQuery = (id: string) => id.includes('?') ? [id.slice(0, id.indexOf('?')), id.slice(id.indexOf('?'))] as const : [id, ''] as const
  const shownId = (id: string) => {
    const [path, query] = splitQuery(id)
    return esbuild ? `${relative(root, path).replace(/\\/g, '/')}${query}` : id
  }
  const fileId = (id: string) => {
    const [path, query] = splitQuery(id)
    return esbuild && !isAbsolute(path) ? `${resolve(root, path)}${query}` : id
  }
  let root = resolve(options.root ?? process.cwd())
  let filter = createFileFilter(options.include, options.exclude, root)
  const loader = new SkillLoader({ strict: options.strict, onInvalid: options.onInvalid })
  const relativize = (file: string) => relative(root, file).replace(/\\/g, '/') || file
  let runtime: string | undefined
  /** Files whose warnings this build has shown, so `?cover` and `?meta` of one skill warn once. */
  const warned = new Set<string>()
  const registryDirs = () => (options.skills?.dirs ?? DEFAULT_SKILL_DIRS).map(dir => resolve(root, dir))
  const codegen = { runtime: () => (runtime ??= runtimePath()), relativize }
  const knowledge = new KnowledgeService(options, () => root, relativize)
  let viteServe: ViteServe | undefined
  const chunkAssets = new ChunkRelativeAssets()
  let rolldownPlatform: string | undefined
  const resolveFileUrl = (request: FileUrlRequest) => chunkAssets.resolveFileUrl(request) ?? null
  let viteLogger: InfoLogger | undefined

  /** The resolved id of a `virtual:skill-kit/…` import. */
  const virtualId = (request: string) => request === REGISTRY_ID
    ? registryId()
    : request.startsWith(KNOWLEDGE_PREFIX) ? knowledgeModuleId({ kind: 'name', name: request.slice(KNOWLEDGE_PREFIX.length) }, false, root) : undefined

  /** Compiles a skill for a module: watches its files, fails on errors, warns once. `undefined` after an error. */
  function compile(context: UnpluginBuildContext & UnpluginContext, file: string): CompiledSkill | undefined {
    const { compiled, dependencies } = loader.load(file)
    for (const dependency of dependencies)
      context.addWatchFile(dependency)
    if (compiled.failed) {
      const errors = compiled.diagnostics.filter(d => d.severity === 'error').length
      const report = compiled.diagnostics.map(d => toMessage(d, compiled.source, relativize).message).join('\n\n')
      const first = compiled.diagnostics.find(d => d.severity === 'error')!
      context.error({
        message: `Invalid skill ${relativize(compiled.file)} (${errors} error${errors === 1 ? '' : 's'}). Fix them, or set onInvalid: 'fallback' to load it whole:\n\n${report}`,
        id: compiled.file,
        loc: { file: compiled.file, line: first.line, column: first.column },
      })
      return undefined
    }
    if (!warned.has(compiled.file)) {
      warned.add(compiled.file)
      compiled.diagnostics.forEach(d => context.warn(toMessage(d, compiled.source, relativize)))
    }
    return compiled
  }

  /** The registry module, or `undefined` after reporting an invalid skill or a name used twice. */
  function loadRegistry(context: UnpluginBuildContext & UnpluginContext): string | undefined {
    const skills: CompiledSkill[] = []
    for (const file of discoverSkills(registryDirs())) {
      const compiled = compile(context, file)
      if (!compiled)
        return undefined
      skills.push(compiled)
    }
    const byName = new Map<string, CompiledSkill>()
    for (const skill of skills) {
      const other = byName.get(skill.name)
      if (other) {
        context.error(`Two skills are named "${skill.name}": ${relativize(other.file)} and ${relativize(skill.file)}. Skill names must be unique; rename one of them.`)
        return undefined
      }
      byName.set(skill.name, skill)
    }
    return generateRegistry(skills, codegen)
  }

  return {
    name: 'unplugin-skill-kit',
    enforce: 'pre',

    buildStart() {
      warned.clear()
      knowledge.reset()
      chunkAssets.reset((this as { environment?: { name: string } }).environment?.name ?? '')
    },

    watchChange() {
      knowledge.reset()
    },

    resolveId: {
      filter: { id: OUR_IDS },
      async handler(source, importer) {
        if (source === REGISTRY_ID || source === registryId())
          return registryId()
        if (source.startsWith(KNOWLEDGE_PREFIX))
          return knowledgeModuleId({ kind: 'name', name: source.slice(KNOWLEDGE_PREFIX.length) }, meta.framework === 'esbuild', root)
        if (parseKnowledgeModuleId(source, root))
          return source
        if (source.endsWith(BODY_QUERY) && (isAbsolute(source) || meta.framework === 'esbuild'))
          return meta.framework === 'webpack' || meta.framework === 'rspack' ? null : source
        const folder = knowledgeImportPath(source)
        if (folder !== undefined) {
          const dir = folder.startsWith('.') || folder === ''
            ? resolve(importer ? dirname(importer.split('?')[0]!) : root, folder || '.')
            : isAbsolute(folder) && !existsSync(folder) ? join(root, folder) : resolve(root, folder)
          return knowledgeModuleId({ kind: 'dir', dir }, meta.framework === 'esbuild', root)
        }
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
        return id === source ? null : shownId(id)
      },
    },

    load: {
      filter: { id: OUR_IDS },
      async handler(id) {
        if (id === registryId()) {
          const code = loadRegistry(this)
          return code === undefined ? FAILED : { code, map: null }
        }
        const target = parseKnowledgeModuleId(id, root)
        if (target) {
          const code = await loadKnowledgeModule(this, target, { service: knowledge, framework: meta.framework, viteServe, relativize, warned, runtime: runtimePath('runtime-knowledge.mjs'), chunkAssets, rolldownPlatform, progress: progressChannel(this, meta.framework, viteLogger) })
          return code === undefined ? FAILED : { code, map: null }
        }
        if (id.endsWith(BODY_QUERY)) {
          const file = resolve(root, id.slice(0, -BODY_QUERY.length))
          this.addWatchFile(file)
          return { code: generateBodyModule(knowledge.body(file) ?? splitFrontmatter(readFileSync(file, 'utf8')).body), map: null }
        }
        const parsed = parseSkillId(fileId(id))
        if (!parsed || !filter(parsed.file))
          return null
        if (parsed.query.kind === 'invalid') {
          this.error(`${relativize(parsed.file)}: ${parsed.query.reason}`)
          return FAILED
        }
        const compiled = compile(this, parsed.file)
        if (!compiled)
          return FAILED
        const generated = generateModule(compiled, parsed.query, codegen)
        if ('error' in generated) {
          this.error(`${relativize(compiled.file)}: ${generated.error}`)
          return FAILED
        }
        return { code: generated.code, map: null }
      },
    },

    rollup: { resolveFileUrl },
    rolldown: {
      resolveFileUrl,
      options(input) {
        rolldownPlatform = input.platform
      },
    },

    vite: {
      resolveFileUrl,
      // A server build without emitAssets drops every asset in its generateBundle; Node reads ours from beside the bundle.
      writeBundle(output, bundle) {
        const context = this as unknown as { environment?: { name: string }, getFileName: (reference: string) => string }
        const dir = output.dir ?? (output.file ? dirname(output.file) : undefined)
        if (dir)
          chunkAssets.writeDropped(context.environment?.name ?? '', reference => context.getFileName(reference), dir, bundle)
      },
      configResolved(config) {
        viteLogger = config.logger
        if (config.command === 'serve')
          viteServe = { base: config.base, files: new Map() }
        if (options.root)
          return
        root = config.root
        filter = createFileFilter(options.include, options.exclude, root)
      },
      configureServer(server) {
        // A skill added, removed, renamed or edited changes what the registry lists.
        const dirs = registryDirs()
        server.watcher.add(dirs)
        const onChange = (path: string) => {
          if (!dirs.some(dir => path.startsWith(dir + sep)))
            return
          for (const environment of Object.values(server.environments)) {
            const module = environment.moduleGraph.getModuleById(registryId())
            if (module)
              void environment.reloadModule(module)
          }
        }
        for (const event of ['add', 'change', 'unlink', 'addDir', 'unlinkDir'] as const)
          server.watcher.on(event, onChange)
        server.watcher.add(knowledge.namedFolders())

        // A document or setting of a knowledge base changed: its module builds again (unchanged windows come from the cache).
        // Hidden entries are not documents; the index, cache and models a build writes live in them (.skill-kit).
        const onKnowledgeChange = (path: string) => {
          for (const environment of Object.values(server.environments)) {
            for (const [id, module] of environment.moduleGraph.idToModuleMap) {
              const target = parseKnowledgeModuleId(id, root)
              const dir = target && (target.kind === 'dir' ? target.dir : knowledge.folderOf(target.name))
              if (dir && (path === dir || path.startsWith(dir + sep)) && !relative(dir, path).split(sep).some(part => part.startsWith('.'))) {
                knowledge.reset()
                void environment.reloadModule(module)
              }
            }
          }
        }
        for (const event of ['add', 'change', 'unlink', 'unlinkDir'] as const)
          server.watcher.on(event, onKnowledgeChange)

        // Snapshots and (with includeModel) model files, as the knowledge modules named them.
        server.middlewares.use((request, response, next) => {
          const path = request.url?.split('?')[0] ?? ''
          const file = viteServe && path.startsWith(viteServe.base) ? viteServe.files.get(path.slice(viteServe.base.length)) : undefined
          if (!file || !existsSync(file))
            return next()
          response.setHeader('Content-Type', file.endsWith('.json') ? 'application/json' : file.endsWith('.mjs') ? 'text/javascript' : file.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream')
          response.setHeader('Cache-Control', 'no-cache')
          response.end(readFileSync(file))
        })
      },
    },

    webpack(compiler) {
      rewriteVirtualScheme(compiler, virtualId)
    },

    rspack(compiler) {
      rewriteVirtualScheme(compiler, virtualId)
    },

    esbuild: {
      onResolveFilter: OUR_IDS,
      onLoadFilter: OUR_IDS,
      loader: 'js',
      config(build) {
        // Snapshots are imported for their URL: esbuild copies them next to the bundle. Its `file`
        // loader needs an output path, and a build without one (skills only) must not fail for it.
        if (build.outdir || build.outfile)
          build.loader = { '.skillkit': 'file', ...build.loader }
      },
    },
  }
}

/**
 * webpack and rspack read `virtual:` as a URL scheme and never resolve it
 * through plugins; hand them the resolved id instead, which they do.
 */
function rewriteVirtualScheme(compiler: { hooks: { normalModuleFactory: { tap: (name: string, fn: (factory: SchemeFactory) => void) => void } } }, resolve: (request: string) => string | undefined): void {
  compiler.hooks.normalModuleFactory.tap('unplugin-skill-kit', (factory) => {
    factory.hooks.beforeResolve.tap('unplugin-skill-kit', (data) => {
      const resolved = data.request.startsWith('virtual:skill-kit/') ? resolve(data.request) : undefined
      if (resolved)
        data.request = resolved
    })
  })
}

interface SchemeFactory {
  hooks: { beforeResolve: { tap: (name: string, fn: (data: { request: string }) => void) => void } }
}

export const unplugin = /* #__PURE__ */ createUnplugin(unpluginFactory)

export default unplugin
