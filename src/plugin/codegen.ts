import type { CompiledSkill } from '../skill/compile'
import type { SkillQuery } from './ids'
import { registryEntry, sectionMap, skillData, skillMeta } from '../skill/shape'

/** Data as `JSON.parse('…')`: parses faster than an object literal and keeps `__proto__` a plain key. */
function jsonModule(value: unknown): string {
  return `export default /*#__PURE__*/ JSON.parse(${JSON.stringify(JSON.stringify(value))})\n`
}

/** Where generated code finds the runtime, and how it writes paths it ships. */
export interface CodegenContext {
  runtime: () => string
  relativize: (file: string) => string
}

/**
 * `virtual:skill-kit/skills`: every skill's listing data inline, and one
 * dynamic import per skill so that each body is its own chunk.
 */
export function generateRegistry(skills: readonly CompiledSkill[], context: CodegenContext): string {
  const entries = skills.map(skill => registryEntry(skill, context.relativize))
  const loaders = skills.map(skill => `  () => import(${JSON.stringify(skill.file.replace(/\\/g, '/'))}),\n`).join('')
  return `import { createRegistry } from ${JSON.stringify(context.runtime())}\n`
    + `export default /*#__PURE__*/ createRegistry(JSON.parse(${JSON.stringify(JSON.stringify(entries))}), [\n${loaders}])\n`
}

/** Generated code or, for a query that cannot be answered, the reason. */
export type Generated = { code: string } | { error: string }

/**
 * The module source for one query of a compiled skill. `runtime` is the
 * import path of `unplugin-skill-kit/runtime`.
 */
export function generateModule(
  skill: CompiledSkill,
  query: SkillQuery,
  context: CodegenContext,
): Generated {
  switch (query.kind) {
    case 'skill':
      return {
        code: `import { createSkill } from ${JSON.stringify(context.runtime())}\n`
          + `export default /*#__PURE__*/ createSkill(JSON.parse(${JSON.stringify(JSON.stringify(skillData(skill, context.relativize)))}))\n`,
      }
    case 'cover':
      return { code: `export default ${JSON.stringify(skill.cover)}\n` }
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
      return { code: `export default ${JSON.stringify(section.content)}\n` }
    }
  }
}
