import type { Target } from '../../src/skill/targets'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SkillLoader } from '../../src/skill/load'
import { targetDiagnostics } from '../../src/skill/targets'

const fixtures = join(import.meta.dirname, 'fixtures/targets')

/** `[severity, code, line, column, message]` */
type Expected = [severity: 'error' | 'warning', code: string, line: number, column: number, message: string]

function diagnostics(file: string, target: Target) {
  const { compiled } = new SkillLoader({ onInvalid: 'fallback' }).load(join(fixtures, file))
  return targetDiagnostics(compiled, target).map(d => [d.severity, d.code, d.line, d.column, d.message])
}

const REJECTED = 'The Agent Skills reference validator rejects the field'
const STRICT_YAML = 'The reference validator parses frontmatter with StrictYAML, which rejects'

const cases: [file: string, target: Target, expected: Expected[]][] = [
  ['agentskills-field-rejected/SKILL.md', 'agentskills', [
    ['error', 'agentskills-field-rejected', 4, 1, `${REJECTED} "context_trigger" ("Unexpected fields in frontmatter"). For strict compliance, replace it with these keys under "metadata", which skill-kit reads too: context_trigger.paths: "*.sql, supabase/**"; context_trigger.topics: "database"; context_trigger.always_active: "false".`],
    ['error', 'agentskills-field-rejected', 11, 1, `${REJECTED} "when_to_use" ("Unexpected fields in frontmatter"). Remove it, or move it under "metadata" as a string; only Claude Code reads it.`],
    ['error', 'agentskills-field-rejected', 12, 1, `${REJECTED} "color" ("Unexpected fields in frontmatter"). Remove it, or move it under "metadata" as a string; no agent reads it.`],
  ]],
  ['agentskills-extensions/SKILL.md', 'agentskills', [
    ['error', 'agentskills-field-rejected', 4, 1, `${REJECTED} "paths" ("Unexpected fields in frontmatter"). For strict compliance, replace it with this key under "metadata", which skill-kit reads too: context_trigger.paths: "src/db/**, *.sql". Claude Code then no longer limits the skill to those paths.`],
    ['error', 'agentskills-field-rejected', 5, 1, `${REJECTED} "resources" ("Unexpected fields in frontmatter"). For strict compliance, replace it with this key under "metadata", which skill-kit reads too: resources: "scripts/run.py".`],
    ['error', 'agentskills-field-rejected', 7, 1, `${REJECTED} "progressive" ("Unexpected fields in frontmatter"). For strict compliance, replace it with this key under "metadata", which skill-kit reads too: progressive.always: "rules".`],
  ]],
  ['agentskills-yaml/SKILL.md', 'agentskills', [
    ['error', 'agentskills-yaml-anchor', 3, 14, `${STRICT_YAML} anchors and aliases ("&what"). Write the value out in full.`],
    ['error', 'agentskills-yaml-anchor', 4, 10, `${STRICT_YAML} anchors and aliases ("*what"). Write the value out in full.`],
    ['error', 'agentskills-yaml-tag', 5, 16, `${STRICT_YAML} tags ("!!str"). Remove the tag; quote the value to keep it text.`],
    ['error', 'agentskills-yaml-flow', 6, 16, `${STRICT_YAML} flow collections ("[…]"). Write a list one "- item" per line and a mapping one "key: value" per line, or quote the value if it is text.`],
  ]],
  ['../invalid/trigger-not-mapping/SKILL.md', 'agentskills', [
    ['error', 'agentskills-field-rejected', 4, 1, `${REJECTED} "context_trigger" ("Unexpected fields in frontmatter"). For strict compliance, give each trigger its own string key under "metadata", which skill-kit reads too, e.g. context_trigger.paths: "*.sql, supabase/**".`],
  ]],
  ['agentskills-name-mismatch/SKILL.md', 'agentskills', [
    ['error', 'agentskills-name-mismatch', 2, 7, `The reference validator requires the folder's name to equal "name" ("Directory name 'agentskills-name-mismatch' must match skill name 'other-name'"). Rename the folder or the name so they agree.`],
  ]],
  ['file-form/deploy.skill.md', 'agentskills', [
    ['error', 'agentskills-not-skill-folder', 1, 1, 'skills-ref validates a folder holding a SKILL.md; "deploy.skill.md" is not one. Move it to deploy/SKILL.md.'],
  ]],
  ['file-form/deploy.skill.md', 'claude', [
    ['error', 'claude-not-discovered', 1, 1, 'Claude Code loads skills from <skills folder>/<name>/SKILL.md, so it never sees "deploy.skill.md". Move it to deploy/SKILL.md.'],
  ]],
  ['file-form/deploy.skill.md', 'codex', [
    ['error', 'codex-not-discovered', 1, 1, 'Codex only loads files named SKILL.md, so it never sees "deploy.skill.md". Move it to deploy/SKILL.md.'],
  ]],
  ['agentskills-field-rejected/SKILL.md', 'claude', [
    ['warning', 'claude-field-ignored', 4, 1, 'Claude Code does not read context_trigger: it lists this skill from the start instead of activating it on a match. For its paths, add the top-level key Claude Code reads: paths: "*.sql, supabase/**".'],
  ]],
  ['strict-form/SKILL.md', 'claude', [
    ['warning', 'claude-field-ignored', 6, 3, 'Claude Code does not read context_trigger: it lists this skill from the start instead of activating it on a match. For its paths, add the top-level key Claude Code reads: paths: "*.sql, supabase/**".'],
  ]],
  ['claude-description-truncated/SKILL.md', 'claude', [
    ['warning', 'claude-description-truncated', 3, 14, 'Claude Code cuts the combined description and when_to_use at 1,536 characters in its skill listing; this skill has 1,601. Put the key use case first, or shorten them.'],
  ]],
  ['strict-form/SKILL.md', 'codex', [
    ['warning', 'codex-field-ignored', 6, 3, 'Codex reads only name, description and metadata.short-description: it lists this skill from the start, whatever its triggers.'],
  ]],
  ['codex-paths-ignored/SKILL.md', 'codex', [
    ['warning', 'codex-field-ignored', 4, 1, 'Codex reads only name, description and metadata.short-description: it lists this skill from the start, whatever its triggers.'],
  ]],
  ['codex-short-description-too-long/SKILL.md', 'codex', [
    ['error', 'codex-short-description-too-long', 5, 22, 'Codex refuses to load a skill whose metadata.short-description has more than 1024 characters; this one has 1025. Shorten it.'],
  ]],
]

describe('targets', () => {
  it.each(cases)('%s against %s', (file, target, expected) => {
    expect(diagnostics(file, target)).toEqual(expected)
  })

  it('finds nothing the reference validator rejects in the strict form', () => {
    expect(diagnostics('strict-form/SKILL.md', 'agentskills')).toEqual([])
    expect(new SkillLoader().load(join(fixtures, 'strict-form/SKILL.md')).compiled.diagnostics).toEqual([])
  })

  it('reports nothing more for skills the targets read as they are', () => {
    for (const target of ['claude', 'codex'] as const) {
      expect(diagnostics('agentskills-name-mismatch/SKILL.md', target)).toEqual([])
      expect(diagnostics('agentskills-yaml/SKILL.md', target)).toEqual([])
    }
  })

  it('leaves a name mismatch to --strict when it is already an error', () => {
    const { compiled } = new SkillLoader({ strict: true, onInvalid: 'fallback' }).load(join(fixtures, 'agentskills-name-mismatch/SKILL.md'))
    expect(targetDiagnostics(compiled, 'agentskills')).toEqual([])
  })
})
