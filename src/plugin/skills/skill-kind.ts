// Skill modules: `x/SKILL.md` and its `?cover`, `?sections`, `?section=<id>` and `?meta` forms.

import type { PluginState } from '../state'
import type { HookContext, ModuleKind } from '../kind'
import { existsSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { generateModule } from './codegen'
import { canonicalId, parseSkillId } from './ids'
import { compileReported, failedModule } from './report'

interface ResolvingContext {
  resolve?: (id: string, importer?: string, options?: { skipSelf: boolean }) => Promise<{ id: string } | null>
}

export function skillKind(state: PluginState): ModuleKind {
  const codegen = { runtime: () => state.runtime(), relativize: state.relativize, hot: () => state.viteServe !== undefined }
  // Each module's file is matched against include and exclude when it is resolved and again when it is loaded:
  // the answers are kept per file, until the patterns change (Vite sets the root after the plugin is made).
  const included = new Map<string, boolean>()
  let includedBy = state.filter
  const isIncluded = (file: string): boolean => {
    if (includedBy !== state.filter) {
      included.clear()
      includedBy = state.filter
    }
    let answer = included.get(file)
    if (answer === undefined)
      included.set(file, answer = state.filter(file))
    return answer
  }
  return {
    name: 'skill',

    async resolveId(source, importer, context: HookContext) {
      const parsed = parseSkillId(source)
      if (!parsed)
        return undefined
      let file = parsed.file
      if (file.startsWith('.')) {
        file = resolve(importer ? dirname(importer.split('?')[0]!) : state.root, file)
      }
      else if (isAbsolute(file)) {
        // Vite reads `/skills/x/SKILL.md` as relative to its root.
        if (!existsSync(file) && existsSync(join(state.root, file)))
          file = join(state.root, file)
      }
      else {
        // Aliases and packages: where the bundler's context offers `this.resolve`, it resolves them; elsewhere the bundler does, after us.
        const resolved = await (context as ResolvingContext).resolve?.(file, importer, { skipSelf: true })
        if (!resolved)
          return null
        file = resolved.id.split('?')[0]!
      }
      if (!isIncluded(file) || !existsSync(file))
        return null
      const query = source.includes('?') ? source.slice(source.indexOf('?')) : ''
      const id = parsed.query.kind === 'invalid' ? file + query : canonicalId(file, parsed.query)
      // Answering an id with itself makes a bundler that resolves answers again loop forever.
      return id === source ? null : state.shownId(id)
    },

    owns(id) {
      const parsed = parseSkillId(state.fileId(id))
      return parsed !== undefined && isIncluded(parsed.file)
    },

    load(id, context) {
      const parsed = parseSkillId(state.fileId(id))!
      if (parsed.query.kind === 'invalid') {
        context.error(state.bundler.message(`${state.relativize(parsed.file)}: ${parsed.query.reason}`, undefined))
        return undefined
      }
      const skill = compileReported(context, state, parsed.file, id)
      if (!skill)
        return failedModule(state, [parsed.file], id)
      const generated = generateModule(skill.compiled, parsed.query, codegen)
      if ('error' in generated) {
        context.error(state.bundler.message(`${state.relativize(skill.compiled.file)}: ${generated.error}`, undefined))
        return undefined
      }
      return { code: generated.code, files: skill.files, dirs: skill.dirs }
    },

    ids: /\.md(?:\?.*)?$/,
  }
}
