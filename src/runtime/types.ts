/**
 * How a skill was loaded:
 * - `progressive`: the body is split into sections read on demand;
 * - `regular`: no `progressive` key, the cover is the whole body;
 * - `fallback`: progressive validation failed and `onInvalid: 'fallback'` let
 *   it load anyway, with the whole body as cover and no section reading.
 */
export type SkillMode = 'progressive' | 'regular' | 'fallback'

/** One entry of a skill's section index, in document order. */
export interface SectionIndexEntry {
  /** The stable `{#id}` of the heading. */
  id: string
  /** Heading text without the ID. */
  title: string
  /** 2 or 3. */
  level: number
  /** ID of the enclosing level-2 section, for level-3 sections. */
  parent: string | null
}

/** A section with its content, as given by `?sections`. */
export interface SectionInfo extends SectionIndexEntry {
  /** IDs of the level-3 sections inside a level-2 section. */
  children: string[]
  /** The section verbatim from its heading line to its last non-blank line. */
  content: string
  /** 1-based file line of the heading. */
  startLine: number
  /** 1-based file line of the section's last non-blank line. */
  endLine: number
}

/** Section ID to section, in document order. */
export type SectionMap = Record<string, SectionInfo>

/** A problem the build reported for a skill but that did not stop it from loading. */
export interface SkillDiagnostic {
  code: string
  severity: 'error' | 'warning'
  message: string
  /** Path relative to the build root. */
  file: string
  line: number
  column: number
}

/** Everything about a skill that a registry lists, without cover or section text (`?meta`). */
export interface SkillMeta {
  name: string
  description: string
  /** The whole frontmatter as parsed YAML. */
  frontmatter: Record<string, unknown>
  mode: SkillMode
  sections: SectionIndexEntry[]
  /** Bundled files, relative to the skill folder. */
  resources: string[]
  diagnostics: SkillDiagnostic[]
}

/** Options of a section read. */
export interface ReadOptions {
  /** Lines of the section to skip (default 0). */
  offset?: number
  /** Most lines to return (default: all). */
  limit?: number
}

/** A loaded skill (the default export of a `SKILL.md` import). */
export interface Skill extends SkillMeta {
  /** What the agent sees when it loads the skill. */
  cover: string
  /**
   * Reads a section by ID or, when no ID matches, by heading text
   * (case-insensitive). Throws a {@link SkillReadError} for unknown or
   * ambiguous references and on skills that are not progressive.
   */
  readSection: (ref: string, options?: ReadOptions) => string
}

/** The serialised form of a skill that generated modules hand to `createSkill`. */
export interface SkillData extends SkillMeta {
  cover: string
  /** Section contents by ID, without duplication: ranges into `body`. */
  body: string
  /** 1-based file line of the body's first line. */
  bodyLine: number
  /** `[startLine, endLine]` (1-based file lines) per section ID. */
  ranges: Record<string, [number, number]>
  /** Why section reading is unavailable, for regular and fallback skills. */
  unreadable?: string
}
