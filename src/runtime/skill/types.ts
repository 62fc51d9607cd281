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

/**
 * A skill's `context_trigger` (and Claude Code's top-level `paths`), validated
 * and normalised: what activates the skill while it is dormant.
 */
export interface SkillTriggers {
  /** Globs with .gitignore semantics, matched against touched paths relative to the working folder. */
  paths: string[]
  /** Keywords or phrases, matched case-insensitively on word boundaries in messages. */
  topics: string[]
  /** Project codes; `#` stands for one digit (`E##` matches `E07`). */
  projects: string[]
  /** Listed from the start, like a skill without triggers. */
  alwaysActive: boolean
}

/** Everything about a skill that a registry lists, without cover or section text (`?meta`). */
export interface SkillMeta {
  name: string
  description: string
  /** The whole frontmatter as parsed YAML. */
  frontmatter: Record<string, unknown>
  mode: SkillMode
  /** Activation triggers, or `null` for a skill that is always listed. */
  triggers: SkillTriggers | null
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

/** Approximate token counts (characters / 4), for budgeting prompts. */
export interface SkillTokens {
  /** The skill's line in a listing: name and description. */
  listing: number
  /** The cover, what `load` returns. */
  cover: number
  /** The whole body. */
  body: number
}

/** A skill of `virtual:skill-kit/skills`: metadata at hand, cover and sections loaded on demand. */
export interface RegistrySkill {
  name: string
  description: string
  mode: SkillMode
  triggers: SkillTriggers | null
  sections: SectionIndexEntry[]
  tokens: SkillTokens
  /** The skill file, relative to the build root. */
  file: string
  /** Loads the skill's own chunk (once) and gives the whole {@link Skill}. */
  load: () => Promise<Skill>
  /** Loads the skill, then reads a section as {@link Skill.readSection} does. */
  readSection: (ref: string, options?: ReadOptions) => Promise<string>
}

/** What activation needs of a skill: a registry entry, a `?meta` import or a plain object. */
export interface ActivationSkill {
  name: string
  description: string
  triggers?: SkillTriggers | null
}

/** Which trigger activated a skill. */
export interface MatchedTrigger {
  /** `load` when the agent loaded a dormant skill by name. */
  kind: 'paths' | 'topics' | 'projects' | 'load'
  /** The trigger as the frontmatter wrote it: `supabase/**`, `database`, `E##` (the skill name for `load`). */
  value: string
  /** What matched it: the path, the words of the message, the project code. */
  matched: string
}

/** A skill that an observation moved from dormant to active. */
export interface Activated<S extends ActivationSkill = ActivationSkill> {
  skill: S
  trigger: MatchedTrigger
}

/** Options of {@link Activation.listing}. */
export interface ListingOptions {
  /** Most characters for the listing; over it, the descriptions of the most recently activated skills are dropped first. */
  budgetChars?: number
}

/** What conditional activation saves: tokens of listing every skill against the current listing. */
export interface ActivationStats {
  skills: number
  active: number
  dormant: number
  /** Approximate tokens of a listing of every skill. */
  allTokens: number
  /** Approximate tokens of the current listing. */
  listingTokens: number
  /** `allTokens - listingTokens`. */
  savedTokens: number
}

/** A session's skill activation state: skills start dormant or active; once active, they stay. */
export interface Activation<S extends ActivationSkill = ActivationSkill> {
  /** Active skills: unconditional ones in the given order, then the activated ones in activation order. */
  readonly active: readonly S[]
  readonly dormant: readonly S[]
  isActive: (name: string) => boolean
  /** Checks a user message or tool result against dormant skills' topics. */
  observeMessage: (text: string) => Activated<S>[]
  /** Checks touched paths (read, edited or created) against dormant skills' path globs; paths outside `cwd` never match. */
  observePaths: (paths: readonly string[], options?: { cwd?: string }) => Activated<S>[]
  /** Checks an active-context document against dormant skills' project codes. */
  observeContext: (text: string) => Activated<S>[]
  /** Activates a skill by name (the agent loaded it); `undefined` when it is unknown or already active. */
  activate: (name: string, trigger?: MatchedTrigger) => Activated<S> | undefined
  /** The prompt block of active skills, one `- name: description` line each. */
  listing: (options?: ListingOptions) => string
  stats: () => ActivationStats
}
