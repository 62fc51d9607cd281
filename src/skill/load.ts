import type { CompileOptions, CompiledSkill } from './compile'
import type { EntryKind, SkillFolder } from './resources'
import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { DiagnosticBag } from '../core/diagnostics'
import { hash } from '../core/hash'
import { readBounded } from '../core/read-bounded'
import { compileSkill, expectedSkillName } from './compile'
import { declaredResourcePaths } from './metadata-form'
import { folderRelative } from './resources'

/** A compiled skill and the files it was made from, for watching. */
export interface LoadedSkill {
  compiled: CompiledSkill
  /** Absolute paths whose change invalidates the skill. */
  dependencies: string[]
}

interface Entry extends LoadedSkill {
  source: string
  /** Hash of what the skill's other dependencies hold. */
  key: string
}

function kindOf(path: string): EntryKind {
  try {
    const stat = lstatSync(path)
    return stat.isSymbolicLink() ? 'symlink' : stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : 'missing'
  }
  catch {
    return 'missing'
  }
}

/** Entries a folder listing leaves out: hidden ones and `node_modules`. */
function skipped(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules'
}

/** Files of a skill folder, relative and sorted; hidden entries, `node_modules` and symlinks skipped. */
function listFolder(root: string, skip: string): string[] {
  // Most skills are alone in their folder: names alone say so, without an entry object each.
  const own = basename(skip)
  if (readdirSync(root).every(name => name === own || skipped(name)))
    return []
  const files: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (skipped(entry.name))
        continue
      const path = join(dir, entry.name)
      if (entry.isDirectory())
        walk(path)
      else if (entry.isFile() && path !== skip)
        files.push(relative(root, path).split(sep).join('/'))
    }
  }
  walk(root)
  return files.sort()
}

/** The folder view the validator needs: listing for `SKILL.md`, and `lstat`-based kinds. */
function snapshotFolder(file: string): SkillFolder & { root: string } {
  const root = dirname(file)
  return {
    root,
    files: basename(file) === 'SKILL.md' ? listFolder(root, file) : undefined,
    kind(rel) {
      // A symlinked folder along the way counts too: the file would live outside.
      const parts = rel.split('/')
      let path = root
      for (const [i, part] of parts.entries()) {
        path = join(path, part)
        const kind = kindOf(path)
        if (kind === 'symlink' || kind === 'missing' || i === parts.length - 1)
          return kind
        if (kind !== 'directory')
          return 'missing'
      }
      return 'directory'
    },
  }
}

/**
 * Most bytes of a skill file (4 MiB, as a knowledge document's default): a
 * skill is read whole into every agent's context, so one this large is a
 * mistake, and a bound on what one file costs a build.
 */
export const MAX_SKILL_BYTES = 4 * 1024 * 1024

/** A skill file over {@link MAX_SKILL_BYTES}: its one error, and nothing compiled (no cover, no sections). */
function oversizedSkill(file: string, size: number, options: CompileOptions): CompiledSkill {
  const bag = new DiagnosticBag(file)
  bag.error('skill-too-large', `The skill file has ${size.toLocaleString('en-US')} bytes; at most ${MAX_SKILL_BYTES.toLocaleString('en-US')} (4 MiB) are read. Move long reference material into files of the skill's folder (its resources), which agents read only when they need them.`, { line: 1, column: 1 })
  return {
    file,
    source: '',
    name: expectedSkillName(file).name,
    description: '',
    frontmatter: {},
    mode: 'fallback',
    triggers: null,
    cover: '',
    sections: [],
    resources: [],
    body: '',
    bodyLine: 1,
    diagnostics: bag.items,
    failed: (options.onInvalid ?? 'error') === 'error',
  }
}

/**
 * Compiles skills and remembers them by the content of what they depend on:
 * the skill file, the files of its folder (for `SKILL.md`) and its declared
 * resources. Any change there recompiles that skill and nothing else.
 */
export class SkillLoader {
  private readonly entries = new Map<string, Entry>()
  private trusted = false

  constructor(private readonly options: CompileOptions = {}) {}

  /**
   * From now on, a compiled skill is reused without reading its files again
   * until {@link invalidate} names one of them: for a caller that hears of
   * every change (a dev server's watcher), so that rebuilding the registry
   * after one edit reads one skill, not all of them.
   */
  trustUntilInvalidated(): void {
    this.trusted = true
  }

  /** Forgets the skills that `path` (a file or folder, added, changed or removed) may change. */
  invalidate(changed: string): void {
    // Watchers may report `/`-separated paths; entries are keyed by the platform's.
    const path = resolve(changed)
    for (const [file, entry] of this.entries) {
      const folder = dirname(file)
      const listed = basename(file) === 'SKILL.md' && path.startsWith(folder + sep)
      if (listed || entry.dependencies.includes(path) || file.startsWith(path + sep))
        this.entries.delete(file)
    }
  }

  load(file: string): LoadedSkill {
    const trusted = this.trusted && this.entries.get(file)
    if (trusted)
      return trusted
    const read = readBounded(file, MAX_SKILL_BYTES)
    if (!('text' in read)) {
      const entry = { compiled: oversizedSkill(file, read.size, this.options), dependencies: [file], source: `oversized:${read.size}`, key: '' }
      this.entries.set(file, entry)
      return entry
    }
    const source = read.text
    const folder = snapshotFolder(file)
    const cached = this.entries.get(file)
    // The skill file is compared as text; its other dependencies by content hash.
    const key = (dependencies: string[]) => dependencies.length === 1 ? ALONE : hash(...dependencies.slice(1).flatMap(path => [path, fingerprint(path)]))

    if (cached && cached.source === source && cached.key === key(this.dependencies(file, folder, cached.compiled)))
      return cached

    const compiled = compileSkill({ file, source, folder }, this.options)
    const dependencies = this.dependencies(file, folder, compiled)
    const entry = { compiled, dependencies, source, key: key(dependencies) }
    this.entries.set(file, entry)
    return entry
  }

  /** Forgets a skill, e.g. when its file is deleted. */
  delete(file: string): void {
    this.entries.delete(file)
  }

  private dependencies(file: string, folder: ReturnType<typeof snapshotFolder>, compiled: CompiledSkill): string[] {
    // Only what lies inside the folder, with no symlink along the way: nothing outside is read, hashed or watched.
    const declared = declaredResourcePaths(compiled.frontmatter)
      .map(folderRelative)
      .filter((rel): rel is string => rel !== undefined && rel !== '' && folder.kind(rel) !== 'symlink')
    const listed = [...(folder.files ?? []), ...declared].map(rel => join(folder.root, rel))
    return [file, ...new Set(listed)]
  }
}

/** The key of a skill that depends on no other file, as {@link hash} gives it: most skills are alone in their folder, and a hash costs microseconds. */
const ALONE = hash()

/** Files larger than this are told apart by size and modification time: reading them whole for a hash costs more than it tells. */
const HASHED_BYTES = 32 * 1024 * 1024

function fingerprint(path: string): string {
  const kind = kindOf(path)
  if (kind !== 'file')
    return kind
  const { size, mtimeMs } = lstatSync(path)
  return size > HASHED_BYTES ? `${size}:${mtimeMs}` : hash(readFileSync(path))
}
