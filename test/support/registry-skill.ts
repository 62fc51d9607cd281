import type { RegistrySkill } from '../../src/runtime'
import type { CompileOptions } from '../../src/skill/compile'
import { posix } from 'node:path'
import { createRegistry, createSkill } from '../../src/runtime'
import { compileSkill } from '../../src/skill/compile'
import { registryEntry, skillData } from '../../src/skill/shape'

/** A registry entry made from a skill's source, as `virtual:skill-kit/skills` would list it. */
export function registrySkill(name: string, source: string, options: CompileOptions & { root?: string, folder?: string } = {}): RegistrySkill {
  const root = options.root ?? '/repo'
  const file = `${root}/${options.folder ?? 'skills'}/${name}/SKILL.md`
  const compiled = compileSkill({ file, source, folder: { files: [], kind: () => 'missing' } }, options)
  const relativize = (path: string) => posix.relative(root, path)
  const [skill] = createRegistry([registryEntry(compiled, relativize)], [async () => ({ default: createSkill(skillData(compiled, relativize)) })])
  return skill!
}
