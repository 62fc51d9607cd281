// The skills `skill-kit mcp` serves: the registry folders' skills, compiled
// by the plugin's own loader (so covers, sections and errors are the same),
// read again from disk whenever a client asks, so an edit is served at once.

import type { CompiledSkill } from '../../skill/compile'
import type { RegistrySkill } from '../../runtime/skill/types'
import { createHash } from 'node:crypto'
import { basename, dirname, join, relative, sep } from 'node:path'
import { createSkill } from '../../runtime/skill/create-skill'
import { discoverSkills } from '../../skill/discover'
import { SkillLoader } from '../../skill/load'
import { registryEntry, skillData } from '../../skill/shape'
import { quoteForMessage } from '../../runtime/redact'
import { insidePath, OutsideError, readContained, resolvesInside } from './contain'

/** One file of a served skill, as the MCP skills extension lists it. */
export interface SkillFile {
  /** `/`-separated, relative to the skill's folder; `SKILL.md` for the skill file itself (also for `name.skill.md`). */
  path: string
  /** `sha256:<64 lowercase hex>` of the file's bytes. */
  digest: string
  size: number
}

/** A skill as the server serves it. */
export interface ServedSkill {
  name: string
  compiled: CompiledSkill
  /** The registry folder it was found in. */
  root: string
  /** The skill file, relative to `root`, `/`-separated. */
  file: string
}

/** `sha256:<hex>` of `bytes`, the digest format of the MCP skills extension and the well-known index. */
export function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

const slashed = (path: string) => path.split(sep).join('/')

/**
 * The skills of some registry folders. Two skills with one name: the first
 * (by folder order, then path) is served, as the plugin's registry would list
 * both but the skill tool finds the first. A skill file whose real path is
 * outside its registry folder (a link) is not served at all.
 */
export class SkillCatalog {
  private loader = new SkillLoader({ onInvalid: 'fallback' })
  /** Set once a watcher reports every change (see {@link trustUntilInvalidated}). */
  private trusted = false
  private listed: Map<string, ServedSkill> | undefined
  private registered: { listed: Map<string, ServedSkill>, registry: RegistrySkill[] } | undefined
  /** Files with digests, by absolute skill file. */
  private readonly digests = new Map<string, SkillFile[]>()

  constructor(readonly roots: readonly string[]) {}

  /**
   * From now on, skills and digests are kept until {@link invalidate} names a
   * changed path: for a server whose watcher hears every change, so that a
   * request over hundreds of skills reads no file (bench: 500 skills).
   */
  trustUntilInvalidated(): void {
    this.trusted = true
    this.loader.trustUntilInvalidated()
  }

  /** Reads the skills again at every request, as before {@link trustUntilInvalidated}: the watcher that reported changes is gone. */
  stopTrusting(): void {
    this.trusted = false
    this.loader = new SkillLoader({ onInvalid: 'fallback' })
  }

  /** Forgets what a change of `path` (a file or folder, added, changed or removed) may have changed. */
  invalidate(path: string): void {
    this.listed = undefined
    this.loader.invalidate(path)
    for (const file of this.digests.keys()) {
      const folder = dirname(file)
      // A name.skill.md shares its folder: any change there may be one of its declared files.
      if (path === file || path.startsWith(folder + sep) || file.startsWith(path + sep) || basename(file) !== 'SKILL.md')
        this.digests.delete(file)
    }
  }

  private scan(): Map<string, ServedSkill> {
    if (this.trusted && this.listed)
      return this.listed
    const served = new Map<string, ServedSkill>()
    for (const root of this.roots) {
      for (const file of discoverSkills([root])) {
        // A SKILL.md that is a link out of the folder would serve whatever it points at.
        if (!resolvesInside(root, file))
          continue
        const compiled = this.loader.load(file).compiled
        if (!served.has(compiled.name))
          served.set(compiled.name, { name: compiled.name, compiled, root, file: slashed(relative(root, file)) })
      }
    }
    this.listed = served
    return served
  }

  /** The skills as they are on disk now. */
  skills(): ServedSkill[] {
    return [...this.scan().values()]
  }

  /** The skill called `name` (exactly), or `undefined`. */
  find(name: string): ServedSkill | undefined {
    return this.scan().get(name)
  }

  /**
   * The skills as the runtime's registry, for `createSkillTool`: loading one
   * compiles it again, so the tool answers from the file as it is now. Kept
   * with the listing while it is trusted.
   */
  registry(): RegistrySkill[] {
    const listed = this.scan()
    if (this.registered?.listed === listed)
      return this.registered.registry
    const registry = [...listed.values()].map((served): RegistrySkill => {
      const relativize = (file: string) => slashed(relative(served.root, file))
      const load = async () => createSkill(skillData(this.find(served.name)?.compiled ?? served.compiled, relativize))
      return {
        ...registryEntry(served.compiled, relativize),
        load,
        readSection: async (ref, options) => (await load()).readSection(ref, options),
      }
    })
    this.registered = { listed, registry }
    return registry
  }

  /**
   * The bytes of a skill's file: `SKILL.md` (the skill file, whatever its
   * name) or one of its bundled files. Refuses files the skill does not
   * bundle, and (through {@link readContained}) anything whose real path
   * leaves the registry folder.
   */
  read(skill: ServedSkill, path: string): Buffer {
    const shown = `${quoteForMessage(path)} of skill "${skill.name}"`
    // A path resolved against the skill's root by the client may keep its dot segments: `scripts/../SKILL.md`.
    const inside = insidePath(path)
    if (inside === undefined)
      throw new OutsideError(`${shown} is outside the skill's folder: name a file of the skill by its path in the folder, without "..".`)
    const files = this.filePaths(skill)
    if (!files.includes(inside))
      throw new OutsideError(`Skill "${skill.name}" has no file ${quoteForMessage(path)}. Its files: ${files.join(', ')}.`)
    const folder = dirname(skill.file)
    return readContained(skill.root, inside === 'SKILL.md' ? skill.file : folder === '.' ? inside : `${folder}/${inside}`, shown)
  }

  /** The skill's files: `SKILL.md`, then its bundled files, sorted. */
  filePaths(skill: ServedSkill): string[] {
    return ['SKILL.md', ...skill.compiled.resources.filter(path => path !== basename(skill.file))]
  }

  /** Every file of the skill with its digest and size; files that cannot be read (gone, or leading outside) are left out. */
  files(skill: ServedSkill): SkillFile[] {
    const key = join(skill.root, skill.file)
    const known = this.trusted ? this.digests.get(key) : undefined
    if (known)
      return known
    const files = this.filePaths(skill).flatMap((path) => {
      try {
        const bytes = this.read(skill, path)
        return [{ path, digest: digestOf(bytes), size: bytes.byteLength }]
      }
      catch {
        return []
      }
    })
    this.digests.set(key, files)
    return files
  }
}
