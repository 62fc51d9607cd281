// A diagnostic that suggests a fix in code form (a name, a section ID, a
// quoted value, a field): applying the suggestion as written must give a skill
// that compiles without that error, and without the next one (issue 26).

import type { CompiledSkill } from '../../src/skill/compile'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compileSkill } from '../../src/skill/compile'

interface SkillFile { file: string, source: string }

const compile = ({ file, source }: SkillFile): CompiledSkill =>
  compileSkill({ file, source, folder: { files: [], kind: () => 'missing' } }, { strict: true })

/** The one diagnostic of `code` in `skill`. */
function diagnostic(skill: SkillFile, code: string) {
  const found = compile(skill).diagnostics.filter(d => d.code === code)
  expect(found, `${code} in ${JSON.stringify(compile(skill).diagnostics.map(d => d.message))}`).toHaveLength(1)
  return found[0]!
}

/** `skill` with the name fix of `message` applied: the name it says, and the folder or file renamed as it says. */
function applyNameFix(skill: SkillFile, message: string): SkillFile {
  const name = /name: ([a-z0-9-]+)(?: and a description|$)/.exec(message)?.[1]
  expect(name, message).toBeDefined()
  let file = skill.file
  const folder = /Rename the folder "([^"]+)" to "([^"]+)"/.exec(message)
  if (folder) {
    expect(file).toBe(join('/repo/skills', folder[1]!, 'SKILL.md'))
    file = join('/repo/skills', folder[2]!, 'SKILL.md')
  }
  const stem = /Rename "([^"]+)" to "([^"]+)"/.exec(message)
  if (stem) {
    expect(file).toBe(join('/repo/skills', stem[1]!))
    file = join(dirname(file), stem[2]!)
  }
  let source = skill.source
  if (!source.startsWith('---\n'))
    source = `---\nname: ${name}\ndescription: Fixed.\n---\n${source}`
  else if (/^name:.*$/m.test(source))
    source = source.replace(/^name:.*$/m, `name: ${name}`)
  else source = source.replace('---\n', `---\nname: ${name}\n`)
  return { file, source }
}

const skill = (file: string, frontmatter: string, body = 'Body.\n'): SkillFile => ({ file: `/repo/skills/${file}`, source: `---\n${frontmatter}\n---\n${body}` })

describe('a suggested name passes every rule once applied', () => {
  const cases: [title: string, skill: SkillFile, code: string, fix: string][] = [
    ['an invalid name, in a folder with a valid name', skill('broken/SKILL.md', 'name: Broken_Skill\ndescription: d'), 'name-invalid', 'Use name: broken'],
    ['a name that is not a string', skill('broken/SKILL.md', 'name: 42\ndescription: d'), 'name-invalid', 'Use name: broken'],
    ['no name', skill('broken/SKILL.md', 'description: d'), 'name-missing', 'Add name: broken'],
    ['a name over 64 characters', skill('broken/SKILL.md', `name: ${'a'.repeat(70)}\ndescription: d`), 'name-too-long', 'Use name: broken'],
    ['no frontmatter', { file: '/repo/skills/broken/SKILL.md', source: 'Body.\n' }, 'frontmatter-missing', 'then name: broken and a description'],
    ['a folder whose name is no valid name', skill('My_Skill/SKILL.md', 'name: My_Skill\ndescription: d'), 'name-invalid', 'Rename the folder "My_Skill" to "my-skill", and use name: my-skill'],
    ['no frontmatter, in a folder whose name is no valid name', { file: '/repo/skills/My_Skill/SKILL.md', source: 'Body.\n' }, 'frontmatter-missing', 'Rename the folder "My_Skill" to "my-skill", and use name: my-skill'],
    ['a x.skill.md file', skill('deploy.skill.md', 'name: Deploy\ndescription: d'), 'name-invalid', 'Use name: deploy'],
    ['a x.skill.md file whose stem is no valid name', skill('Deploy_App.skill.md', 'description: d'), 'name-missing', 'Rename "Deploy_App.skill.md" to "deploy-app.skill.md", and add name: deploy-app'],
  ]
  it.each(cases)('%s', (_, broken, code, fix) => {
    const { message } = diagnostic(broken, code)
    expect(message).toContain(fix)
    const fixed = compile(applyNameFix(broken, message))
    expect(fixed.diagnostics).toEqual([])
    expect(fixed.failed).toBe(false)
  })
})

describe('suggested section IDs are unique once applied', () => {
  const progressive = (body: string) => skill('guide/SKILL.md', 'name: guide\ndescription: d\nprogressive: {}', body)

  /** The skill with `{#id}` put on (or replacing the invalid ID of) each reported heading line. */
  function applyIdFixes(broken: SkillFile, code: string): SkillFile {
    const lines = broken.source.split('\n')
    for (const d of compile(broken).diagnostics.filter(d => d.code === code)) {
      const id = /\{#([^}]+)\}(?: at the end of the heading line)?\.$/.exec(d.message)![1]!
      lines[d.line - 1] = `${lines[d.line - 1]!.replace(/\s*\{#[^}]*\}\s*$/, '')} {#${id}}`
    }
    return { ...broken, source: lines.join('\n') }
  }

  it('for headings with no ID, of the same title as each other and as an ID written', () => {
    const broken = progressive('## Examples {#examples}\n\nA.\n\n## Examples\n\nB.\n\n### Examples\n\nC.\n')
    expect(compile(broken).diagnostics.map(d => [d.code, d.message])).toEqual([
      ['section-id-missing', 'Level-2 heading "Examples" has no section ID. Add {#examples-2} at the end of the heading line.'],
      ['section-id-missing', 'Level-3 heading "Examples" has no section ID. Add {#examples-3} at the end of the heading line.'],
    ])
    expect(compile(applyIdFixes(broken, 'section-id-missing')).diagnostics).toEqual([])
  })

  it('for an invalid ID whose slug another heading has', () => {
    const broken = progressive('## Setup {#-setup}\n\nA.\n\n## Set up again {#setup}\n\nB.\n')
    expect(diagnostic(broken, 'section-id-invalid').message).toContain('e.g. {#setup-2}.')
    expect(compile(applyIdFixes(broken, 'section-id-invalid')).diagnostics).toEqual([])
  })
})

describe('other suggestions', () => {
  it('guesses an always-on section ID the list does not name yet', () => {
    const body = '## Rules {#rules}\n\nA.\n\n## Rulers {#rulers}\n\nB.\n'
    const broken = skill('guide/SKILL.md', 'name: guide\ndescription: d\nprogressive:\n  always: [rules, rule]', body)
    const { message } = diagnostic(broken, 'always-unknown-id')
    expect(message).toBe('"progressive.always" names "rule", but no heading has {#rule}. Did you mean "rulers"? Known IDs: rules, rulers.')
    const fixed = compile({ ...broken, source: broken.source.replace('[rules, rule]', `[rules, ${/Did you mean "([^"]+)"/.exec(message)![1]}]`) })
    expect(fixed.diagnostics).toEqual([])
  })

  it('quotes a metadata value as written, so the value stays what it was', () => {
    const broken = skill('meta/SKILL.md', 'name: meta\ndescription: d\nmetadata:\n  version: 1.10  # the release\n  "ui kit": true')
    const found = compile(broken).diagnostics.filter(d => d.code === 'metadata-invalid')
    expect(found.map(d => d.message)).toEqual([
      '"metadata.version" must be a string. Quote the value, e.g. version: "1.10"',
      '"metadata.ui kit" must be a string. Quote the value, e.g. "ui kit": "true"',
    ])
    const lines = broken.source.split('\n')
    for (const d of found)
      lines[d.line - 1] = `  ${/e\.g\. (.+)$/.exec(d.message)![1]}`
    const fixed = compile({ ...broken, source: lines.join('\n') })
    expect(fixed.diagnostics).toEqual([])
    expect(fixed.frontmatter.metadata).toEqual({ 'version': '1.10', 'ui kit': 'true' })
  })

  it('suggests a trigger key the mapping does not have yet, and says so when it has', () => {
    const typo = skill('sql/SKILL.md', 'name: sql\ndescription: d\ncontext_trigger:\n  topic: [migration]')
    const { message } = diagnostic(typo, 'trigger-unknown-key')
    expect(message).toBe('Unknown key "context_trigger.topic". Did you mean "topics"? Use paths, topics, projects or always_active.')
    expect(compile({ ...typo, source: typo.source.replace('topic:', 'topics:') }).diagnostics).toEqual([])

    const both = skill('sql/SKILL.md', 'name: sql\ndescription: d\ncontext_trigger:\n  topics: [schema]\n  topic: [migration]')
    expect(diagnostic(both, 'trigger-unknown-key').message).toBe('Unknown key "context_trigger.topic". It looks like "topics", which is set already: keep one of them. Use paths, topics, projects or always_active.')
    const strict = skill('sql/SKILL.md', 'name: sql\ndescription: d\nmetadata:\n  context_trigger.topics: schema\n  context_trigger.topic: migration')
    expect(diagnostic(strict, 'trigger-unknown-key').message).toContain('Unknown key "metadata.context_trigger.topic". It looks like "context_trigger.topics", which is set already: keep one of them.')
  })

  it('suggests no field the frontmatter already has, which renaming the key to would duplicate', () => {
    const broken = skill('typo/SKILL.md', 'name: typo\ndescription: d\ndescripton: e\nlicence: MIT')
    const messages = compile(broken).diagnostics.filter(d => d.code === 'field-unknown').map(d => d.message)
    expect(messages).toEqual([
      'Unknown frontmatter field "descripton". It looks like "description", which is set already: keep one of them. Agents ignore it; put custom data under "metadata".',
      'Unknown frontmatter field "licence". Did you mean "license"? Agents ignore it; put custom data under "metadata".',
    ])
    const fixed = compile({ ...broken, source: broken.source.replace('licence:', 'license:') })
    expect(fixed.diagnostics.filter(d => d.code === 'field-unknown').map(d => d.message)).toEqual([messages[0]])
    expect(fixed.diagnostics.filter(d => d.severity === 'error')).toEqual([])
  })
})
