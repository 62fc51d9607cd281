import type { CompiledSkill } from '../../skill/compile'
import type { SkillQuery } from './ids'
import { hash } from '../../core/hash'
import { registryEntry, sectionMap, skillData, skillMeta } from '../../skill/shape'

/** Data as `JSON.parse('…')`: parses faster than an object literal and keeps `__proto__` a plain key. */
function jsonModule(value: unknown): string {
  return `export default /*#__PURE__*/ JSON.parse(${JSON.stringify(JSON.stringify(value))})\n`
}

/** What a template literal's text must escape: the backslash, the backtick and `${`. */
const TEMPLATE_SPECIAL = /[\\`]|\$\{/g

/** `String.prototype.isWellFormed` (Node 20 has it; the ES2023 types lack it): one-byte strings answer at once. */
const isWellFormed = (text: string): boolean => (text as string & { isWellFormed: () => boolean }).isWellFormed()

/**
 * A text module. Skill text goes as a template literal: escaping it costs
 * half what `JSON.stringify` does (lines break as they are), and the parsed
 * value is the same (bundlers that print it back, as Vite does, print the
 * same string). Text that a template literal would not keep verbatim goes as
 * JSON: a carriage return (read as a line feed there) and lone surrogates
 * (which no UTF-8 file holds, so the bundler would not get them back).
 */
function textModule(text: string): string {
  if (text.includes('\r') || !isWellFormed(text))
    return `export default ${JSON.stringify(text)}\n`
  return `export default \`${text.replace(TEMPLATE_SPECIAL, '\\$&')}\`\n`
}

/** Where generated code finds the runtime, and how it writes paths it ships. */
export interface CodegenContext {
  runtime: () => string
  relativize: (file: string) => string
  /** Whether modules are for the Vite dev server, which updates them in place (never in builds). */
  hot?: () => boolean
}

/**
 * `virtual:skill-kit/skills`: every skill's listing data inline, and one
 * dynamic import per skill so that each body is its own chunk. In the dev
 * server it accepts its own updates and patches the array its importers hold;
 * each skill's content version tells the patch which skills changed.
 */
export function generateRegistry(skills: readonly CompiledSkill[], context: CodegenContext): string {
  const entries = skills.map(skill => registryEntry(skill, context.relativize))
  const loaders = skills.map(skill => `  () => import(${JSON.stringify(skill.file.replace(/\\/g, '/'))}),\n`).join('')
  const create = `createRegistry(JSON.parse(${JSON.stringify(JSON.stringify(entries))}), [\n${loaders}]`
  if (!context.hot?.())
    return `import { createRegistry } from ${JSON.stringify(context.runtime())}\n`
      + `export default /*#__PURE__*/ ${create})\n`
  const versions = skills.map(skill => contentVersion(skill, context))
  return `import { createRegistry, patchRegistry } from ${JSON.stringify(context.runtime())}\n`
    + `const skills = ${create}, JSON.parse(${JSON.stringify(JSON.stringify(versions))}))\n`
    + `export default skills\n`
    + `if (import.meta.hot) {\n${patchOnUpdate('skills', 'patchRegistry')}}\n`
}

/**
 * Accepts the module's updates by patching the value its importers hold: the
 * first version's (kept in `hot.data`), since each update runs the accept
 * callback of the version before it.
 */
function patchOnUpdate(name: string, patch: string): string {
  return `  const held = import.meta.hot.data.${name} ??= ${name}\n`
    + `  import.meta.hot.accept(next => next && ${patch}(held, next.default))\n`
}

/** Content versions by compiled skill: the loader hands back the same object while a skill is unchanged. */
const versionCache = new WeakMap<CompiledSkill, string>()

function contentVersion(skill: CompiledSkill, context: CodegenContext): string {
  let version = versionCache.get(skill)
  if (version === undefined) {
    version = hash(JSON.stringify(skillData(skill, context.relativize)))
    versionCache.set(skill, version)
  }
  return version
}

/** Generated code or, for a query that cannot be answered, the reason. */
export type Generated = { code: string } | { error: string }

/**
 * In the dev server, a data module (`?cover`, `?meta`, …) accepts its own
 * updates by reloading the page that holds it: an update message reaches
 * every page, and Vite's own rule (a full reload) would reload pages that
 * never imported it. Module runners (SSR) re-import it instead.
 */
const RELOAD_ON_UPDATE = `if (import.meta.hot)\n  import.meta.hot.accept(() => typeof location === 'undefined' ? import.meta.hot.invalidate() : location.reload())\n`

/**
 * The module source for one query of a compiled skill. `runtime` is the
 * import path of `unplugin-skill-kit/runtime`.
 */
export function generateModule(
  skill: CompiledSkill,
  query: SkillQuery,
  context: CodegenContext,
): Generated {
  const generated = generateData(skill, query, context)
  if ('error' in generated || !context.hot?.())
    return generated
  if (query.kind !== 'skill')
    return { code: generated.code + RELOAD_ON_UPDATE }
  // The Skill object is patched in place: whoever holds it (a page, the registry's load()) sees the new skill.
  return {
    code: `import { createSkill, patchSkill } from ${JSON.stringify(context.runtime())}\n`
      + `const skill = ${skillExpression(skill, context)}\n`
      + `export default skill\n`
      + `if (import.meta.hot) {\n${patchOnUpdate('skill', 'patchSkill')}}\n`,
  }
}

function skillExpression(skill: CompiledSkill, context: CodegenContext): string {
  return `createSkill(JSON.parse(${JSON.stringify(JSON.stringify(skillData(skill, context.relativize)))}))`
}

function generateData(skill: CompiledSkill, query: SkillQuery, context: CodegenContext): Generated {
  switch (query.kind) {
    case 'skill':
      return {
        code: `import { createSkill } from ${JSON.stringify(context.runtime())}\n`
          + `export default /*#__PURE__*/ ${skillExpression(skill, context)}\n`,
      }
    case 'cover':
      return { code: textModule(skill.cover) }
    case 'meta':
      return { code: jsonModule(skillMeta(skill, context.relativize)) }
    case 'sections':
      return { code: jsonModule(sectionMap(skill)) }
    case 'section': {
      if (skill.mode !== 'progressive')
        return { error: `Cannot import ?section=${query.id}: skill "${skill.name}" is ${skill.mode === 'regular' ? 'a regular skill without sections' : 'in fallback mode because it failed validation'}. Import the skill or its ?cover instead.` }
      const section = skill.sections.find(s => s.id === query.id)
      if (!section)
        return { error: `Skill "${skill.name}" has no section "${query.id}". Known section IDs: ${skill.sections.map(s => s.id).join(', ')}.` }
      return { code: textModule(section.content) }
    }
  }
}
