import type { SectionInfo } from '../runtime/skill/types'

/** The one-line hint that opens every progressive cover. */
export const COVER_HINT = 'This skill is progressive: read the sections you need with the skill tool\'s read_section action, passing a section_id from the index below (offset and limit read a range of lines).'

/** What goes on a progressive skill's cover. */
export interface CoverParts {
  /** Body text before the first section, if any. */
  preamble: string
  /** Bundled files, relative to the skill folder. */
  resources: readonly string[]
  /** Always-on section IDs, in the order the frontmatter lists them. */
  always: readonly string[]
  /** Every section, in document order. */
  sections: readonly SectionInfo[]
}

/**
 * Renders the cover: the hint, the preamble, the bundled files, the full
 * Always-on sections, then the index of sections readable on demand
 * (`ID — title`, level-3 entries indented under their parent).
 */
export function renderCover({ preamble, resources, always, sections }: CoverParts): string {
  const blocks = [COVER_HINT]
  if (preamble)
    blocks.push(preamble)
  if (resources.length > 0)
    blocks.push(['Bundled files (paths relative to the skill folder):', ...resources.map(file => `- ${file}`)].join('\n'))
  const byId = new Map(sections.map(s => [s.id, s]))
  for (const id of always)
    blocks.push(byId.get(id)!.content)
  blocks.push([
    'Sections you can read on demand:',
    ...sections.map(s => `${s.parent ? '  ' : ''}- ${s.id} — ${s.title}`),
  ].join('\n'))
  return blocks.join('\n\n')
}
