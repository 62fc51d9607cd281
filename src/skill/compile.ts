import type { Diagnostic } from '../core/diagnostics'
import type { YamlValue } from '../core/yaml-value'
import type { SectionInfo, SkillMode, SkillTriggers } from '../runtime/skill/types'
import type { SkillFolder } from './resources'
import { basename, dirname } from 'node:path'
import { DiagnosticBag } from '../core/diagnostics'
import { normalizeNewlines, splitFrontmatter } from '../core/frontmatter'
import { isYamlMapping } from '../core/yaml-value'
import { parseYaml } from '../core/yaml'
import { renderCover } from './cover'
import { metadataList, RESOURCES_KEY } from './metadata-form'
import { checkAlwaysIds, readProgressive } from './progressive'
import { resolveResources } from './resources'
import { layoutSections, trimBlankText } from './sections'
import { isValidSkillName, nameFix, toSkillName, validateSpec } from './spec'
import { readTriggers } from './triggers'

/** What to do with a skill that has validation errors. */
export type OnInvalid = 'error' | 'fallback'

/** Validation settings shared by the plugin and the CLI. */
export interface CompileOptions {
  /** Make a name that differs from the folder or file name an error (default `false`: a warning). */
  strict?: boolean
  /** `'error'` fails on validation errors; `'fallback'` loads the skill whole instead (default `'error'`). */
  onInvalid?: OnInvalid
}

/** One skill file and what the loader found around it. */
export interface SkillInput {
  /** Absolute path of the skill file. */
  file: string
  source: string
  folder: SkillFolder
}

/** A validated skill, ready to be turned into modules. */
export interface CompiledSkill {
  file: string
  /** The source with normalised line endings, for code frames. */
  source: string
  name: string
  description: string
  frontmatter: Record<string, YamlValue>
  mode: SkillMode
  /** Normalised `context_trigger` / `paths`, or `null` when the skill has none. */
  triggers: SkillTriggers | null
  cover: string
  /** Sections in document order (empty unless the mode is `progressive`). */
  sections: SectionInfo[]
  resources: string[]
  body: string
  bodyLine: number
  /** Every problem found, in reading order. */
  diagnostics: Diagnostic[]
  /** True when the skill has errors and `onInvalid` is `'error'`: the build must fail. */
  failed: boolean
}

/** The name a skill file must carry: its folder for `SKILL.md`, its stem for `x.skill.md`. */
export function expectedSkillName(file: string): { name: string, from: 'folder' | 'file' } {
  const base = basename(file)
  if (base === 'SKILL.md')
    return { name: basename(dirname(file)), from: 'folder' }
  return { name: base.replace(/(?:\.skill)?\.md$/i, ''), from: 'file' }
}

/**
 * Parses and validates a skill and renders its cover and sections. Pure: the
 * file system is only reached through `input.folder`.
 */
export function compileSkill(input: SkillInput, options: CompileOptions = {}): CompiledSkill {
  const { file, folder } = input
  const source = normalizeNewlines(input.source)
  const bag = new DiagnosticBag(file)
  const split = splitFrontmatter(source)
  const expected = expectedSkillName(file)

  let frontmatter: Record<string, YamlValue> = {}
  let doc: ReturnType<typeof parseYaml> | undefined
  if (split.yaml === undefined) {
    const name = isValidSkillName(expected.name) ? '' : ` ${nameFix('Use', expected.name, expected.from)}`
    bag.error('frontmatter-missing', `The file has no YAML frontmatter. Start it with a "---" line, then name: ${toSkillName(expected.name) || 'my-skill'} and a description, then a closing "---".${name}`, { line: 1, column: 1 })
  }
  else if (split.unclosed) {
    bag.error('frontmatter-unclosed', 'The frontmatter opened on line 1 is never closed. Add a "---" line after the last frontmatter field.', { line: 1, column: 1 })
  }
  else {
    doc = parseYaml(split.yaml, split.yamlLine, bag)
    if (isYamlMapping(doc.value))
      frontmatter = doc.value
    else if (doc.value !== undefined)
      bag.error('frontmatter-not-mapping', 'The frontmatter must be a YAML mapping of fields, e.g. name: my-skill and description: … on separate lines.', { line: split.yamlLine, column: 1 })
  }

  let resources: string[] = []
  let triggers: SkillTriggers | null = null
  let progressive: { always: string[], layout: ReturnType<typeof layoutSections> } | undefined
  if (doc && isYamlMapping(doc.value)) {
    // Split only when a message quotes a line: most skills need none.
    let lines: string[] | undefined
    validateSpec({ frontmatter, doc, bag, expectedName: expected.name, expectedFrom: expected.from, strict: options.strict ?? false, sourceLine: line => (lines ??= source.split('\n'))[line - 1] ?? '' })
    resources = resolveResources(frontmatter.resources, metadataList(frontmatter, RESOURCES_KEY, doc, source), folder, doc, bag)
    triggers = readTriggers(frontmatter, doc, bag, source)
    const always = readProgressive(frontmatter, doc, bag, source)
    if (always) {
      const layout = layoutSections(split.body, split.bodyLine, bag)
      if (layout.sections.length === 0 && !bag.items.some(d => d.code.startsWith('section-id-')))
        bag.error('sections-missing', 'This progressive skill has no section with an ID. Give its level-2 headings IDs, e.g. "## Rules {#rules}", or remove "progressive" to load the body whole.', { line: split.bodyLine, column: 1 })
      checkAlwaysIds(always, layout.sections.map(s => s.id), bag)
      progressive = { always: always.map(a => a.id), layout }
    }
  }

  const mode: SkillMode = bag.hasErrors ? 'fallback' : progressive ? 'progressive' : 'regular'
  const name = typeof frontmatter.name === 'string' && frontmatter.name ? frontmatter.name : expected.name
  const description = typeof frontmatter.description === 'string' ? frontmatter.description : ''
  return {
    file,
    source,
    name,
    description,
    frontmatter,
    mode,
    triggers,
    cover: mode === 'progressive'
      ? renderCover({ preamble: progressive!.layout.preamble, resources, always: progressive!.always, sections: progressive!.layout.sections })
      : trimBlankText(split.body),
    sections: mode === 'progressive' ? progressive!.layout.sections : [],
    resources,
    body: split.body,
    bodyLine: split.bodyLine,
    diagnostics: bag.sorted(),
    failed: bag.hasErrors && (options.onInvalid ?? 'error') === 'error',
  }
}
