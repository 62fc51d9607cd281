import type { CompiledSkill } from '../skill/compile'
import type { SkillQuery } from './ids'
import { sectionMap, skillData, skillMeta } from '../skill/shape'

/** Data as `JSON.parse('…')`: parses faster than an object literal and keeps `__proto__` a plain key. */
function jsonModule(value: unknown): string {
  return `export default /*#__PURE__*/ JSON.parse(${JSON.stringify(JSON.stringify(value))})\n`
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
  context: { runtime: () => string, relativize: (file: string) => string },
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
