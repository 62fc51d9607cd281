import type { DiagnosticBag, Position } from '../core/diagnostics'
import type { YamlDocument } from '../core/yaml'
import type { YamlValue } from '../core/yaml-value'
import type { MetadataList } from './metadata-form'
import { posix } from 'node:path'

/** What a path inside a skill folder is, without following symlinks. */
export type EntryKind = 'file' | 'directory' | 'symlink' | 'missing'

/** What the validator may know of a skill's folder; filled by the loader at the edge. */
export interface SkillFolder {
  /**
   * The folder's files as slash-separated relative paths, sorted; hidden files,
   * `node_modules` and the skill file itself excluded. `undefined` when the
   * skill does not own its folder (a `x.skill.md` next to other files).
   */
  files: readonly string[] | undefined
  /** The kind of a relative path; a symlink anywhere along the path counts as `symlink`. */
  kind: (relative: string) => EntryKind
}

/**
 * The skill's bundled files: the explicit `resources` list when there is one
 * (or `metadata.resources`, its strict form: `resources: scripts/run.py, data.csv`),
 * each entry checked, else every file of the skill's folder.
 */
export function resolveResources(declared: YamlValue | undefined, listed: MetadataList | undefined, folder: SkillFolder, doc: YamlDocument, bag: DiagnosticBag): string[] {
  if (declared !== undefined && listed !== undefined)
    bag.error('resources-invalid', 'The bundled files are given twice, in "resources" and in "metadata.resources". Keep one of them.', doc.locate(['metadata', 'resources'], 'key'))
  if (declared === undefined && listed !== undefined)
    return checkEntries(listed.items, listed.itemAt, folder, bag)
  if (declared === undefined)
    return [...(folder.files ?? [])]
  if (!Array.isArray(declared)) {
    bag.error('resources-invalid', '"resources" must be a list of file paths relative to the skill folder, e.g. resources: [scripts/run.py].', doc.locate(['resources']))
    return []
  }
  return checkEntries(declared, index => doc.locate(['resources', index]), folder, bag)
}

/**
 * A declared resource as a `/`-separated path inside the skill folder, or
 * `undefined` when it points outside it (absolute, a drive, or up with `..`).
 * Lexical only: symlinks are the folder's `kind` to tell.
 */
export function folderRelative(entry: string): string | undefined {
  const slashed = entry.trim().replace(/\\/g, '/')
  const normalized = posix.normalize(slashed).replace(/^\.\//, '')
  if (posix.isAbsolute(slashed) || /^[A-Za-z]:/.test(slashed) || normalized === '..' || normalized.startsWith('../'))
    return undefined
  return normalized
}

/** Checks each declared entry and returns the normalised paths of the good ones. */
function checkEntries(declared: readonly YamlValue[], locate: (index: number) => Position, folder: SkillFolder, bag: DiagnosticBag): string[] {
  const resources: string[] = []
  const listed = new Set<string>()
  declared.forEach((entry, index) => {
    const at = () => locate(index)
    if (typeof entry !== 'string' || entry.trim() === '') {
      bag.error('resources-invalid', `"resources" item ${index + 1} must be a non-empty relative file path.`, at())
      return
    }
    const normalized = folderRelative(entry)
    if (normalized === undefined) {
      bag.error('resource-outside', `Resource "${entry}" is outside the skill folder. Copy the file into the folder and list its relative path.`, at())
      return
    }
    if (listed.has(normalized)) {
      bag.error('resource-duplicate', `Resource "${entry}" is listed twice. Remove the duplicate.`, at())
      return
    }
    const kind = folder.kind(normalized)
    if (kind === 'missing')
      bag.error('resource-missing', `Resource "${entry}" does not exist in the skill folder. Fix the path or remove the entry.`, at())
    else if (kind === 'symlink')
      bag.error('resource-symlink', `Resource "${entry}" is a symbolic link. Bundled files must be real files inside the skill folder: copy the target in.`, at())
    else if (kind === 'directory')
      bag.error('resource-not-file', `Resource "${entry}" is a folder. List the files inside it instead.`, at())
    else {
      resources.push(normalized)
      listed.add(normalized)
    }
  })
  return resources
}
