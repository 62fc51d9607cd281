// The registry of the Vite dev server is patched in place by hot updates:
// whoever holds it, the skill tool and activation built on it see the new skills.
import type { RegistrySkill, SkillUpdate } from '../../../src/runtime'
import { posix } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createActivation, createRegistry, createSkill, createSkillTool, onSkillUpdate } from '../../../src/runtime'
import { patchRegistry } from '../../../src/runtime/skill/modules'
import { compileSkill } from '../../../src/skill/compile'
import { registryEntry, skillData } from '../../../src/skill/shape'

/** A registry as the dev server's module makes it: `[folder, source]` per skill, with content versions. */
function devRegistry(skills: [string, string][]): RegistrySkill[] {
  const compiled = skills.map(([folder, source]) => compileSkill({ file: `/repo/skills/${folder}/SKILL.md`, source, folder: { files: [], kind: () => 'missing' } }))
  const relativize = (path: string) => posix.relative('/repo', path)
  return createRegistry(
    compiled.map(skill => registryEntry(skill, relativize)),
    compiled.map(skill => async () => ({ default: createSkill(skillData(skill, relativize)) })),
    compiled.map(skill => JSON.stringify(skillData(skill, relativize))),
  )
}

const source = (name: string, description: string, triggers = '') => `---\nname: ${name}\ndescription: ${description}\n${triggers}---\n\n${description} body.\n`
const nextTick = () => new Promise(resolve => setTimeout(resolve, 0))

describe('patchRegistry', () => {
  it('patches the array and the skill objects in place; load() returns the new body', async () => {
    const registry = devRegistry([['a', source('a', 'First.')], ['b', source('b', 'Second.')]])
    const [a, b] = registry
    expect((await a!.load()).cover).toBe('First. body.')

    patchRegistry(registry, devRegistry([['a', source('a2', 'Edited.')], ['c', source('c', 'Third.')]]))
    expect(registry.map(s => s.name)).toEqual(['a2', 'c'])
    expect(registry[0]).toBe(a)
    expect(a!.description).toBe('Edited.')
    expect((await a!.load()).cover).toBe('Edited. body.')
    expect(await a!.readSection('x').catch((error: Error) => error.message)).toMatch(/regular skill/)
    expect(registry).not.toContain(b)
  })

  it('keeps an unchanged skill, with its loaded body, as it was', async () => {
    const registry = devRegistry([['a', source('a', 'First.')]])
    const skill = await registry[0]!.load()
    const load = registry[0]!.load
    patchRegistry(registry, devRegistry([['a', source('a', 'First.')]]))
    expect(registry[0]!.load).toBe(load)
    expect(await registry[0]!.load()).toBe(skill)
  })

  it('calls onSkillUpdate handlers once per update, with what changed', async () => {
    const updates: SkillUpdate[] = []
    const stop = onSkillUpdate(update => updates.push(update))
    try {
      const registry = devRegistry([['a', source('a', 'First.')], ['b', source('b', 'Second.')]])
      patchRegistry(registry, devRegistry([['a', source('a', 'Edited.')], ['c', source('c', 'Third.')]]))
      await nextTick()
      expect(updates).toHaveLength(1)
      expect(updates[0]).toMatchObject({ added: ['c'], changed: ['a'], removed: ['b'] })
      expect(updates[0]!.registry).toBe(registry)
    }
    finally {
      stop()
    }
  })

  it('the skill tool and activation follow the patched registry', async () => {
    const registry = devRegistry([['a', source('a', 'First.')], ['db', source('db', 'Databases.', 'context_trigger:\n  topics: [database]\n')]])
    const tool = createSkillTool(registry)
    const activation = createActivation(registry, { log: () => {} })
    expect(activation.observeMessage('the database is slow').map(x => x.skill.name)).toEqual(['db'])
    expect(tool.description).toContain('- a: First.')

    patchRegistry(registry, devRegistry([
      ['a', source('a', 'Edited.')],
      ['db', source('db', 'Databases.', 'context_trigger:\n  topics: [database]\n')],
      ['new', source('new', 'New one.', 'context_trigger:\n  topics: [deploy]\n')],
    ]))
    expect(tool.description).toContain('- a: Edited.')
    expect(await tool.execute({ action: 'load', skill: 'new' })).toEqual({ content: 'New one. body.', isError: false })
    // Activated skills stay active; new skills get their triggers.
    expect(activation.isActive('db')).toBe(true)
    expect(activation.observeMessage('time to deploy').map(x => x.skill.name)).toEqual(['new'])
    expect(activation.active.map(s => s.name)).toEqual(['a', 'db', 'new'])
  })
})
