// The strict form of this package's frontmatter extensions: the Agent Skills
// reference validator (skills-ref) rejects every top-level key but name,
// description, license, compatibility, metadata and allowed-tools, and the
// specification makes `metadata` a map of string keys to string values. So the
// extensions move under `metadata` as flat keys with comma-separated string
// values, which that validator accepts (it parses with StrictYAML: no flow
// collections, so one plain or quoted string per key) and Codex and Claude Code
// ignore:
//
//   metadata:
//     context_trigger.paths: "*.sql, supabase/**"
//     context_trigger.topics: database, schema migration
//     context_trigger.projects: "E##"
//     context_trigger.always_active: "false"
//     progressive: "true"
//     progressive.always: mandatory-rules, core-tools
//     resources: scripts/run.py, data/table.csv
//
// A nested mapping (`metadata: { context_trigger: { paths: … } }`) would pass
// skills-ref, which turns every metadata value into a string, but breaks the
// specification's map of strings, and a JSON string needs escaping by hand;
// flat keys read as plainly as the top-level form.

import type { Position } from '../core/diagnostics'
import type { YamlDocument } from '../core/yaml'
import type { YamlValue } from '../core/yaml-value'
import { isYamlMapping } from '../core/yaml-value'

/** The metadata key prefix of the trigger keys. */
export const TRIGGER_PREFIX = 'context_trigger.'
/** The metadata key that turns the progressive structure on. */
export const PROGRESSIVE_KEY = 'progressive'
/** The metadata key of the always-on section IDs. */
export const ALWAYS_KEY = 'progressive.always'
/** The metadata key of the bundled file list. */
export const RESOURCES_KEY = 'resources'

/**
 * A comma-separated list under `metadata`, with where each item is in the
 * file. Positions are worked out on first use: only a diagnostic needs one,
 * and locating takes the full YAML parse that plain frontmatter skips.
 */
export interface MetadataList {
  /** The metadata key, e.g. `context_trigger.paths`. */
  key: string
  /** The non-empty items, trimmed, in order. */
  items: string[]
  /** The value's position. */
  at: () => Position
  /** The position of item `index` (the value's when the value spans lines). */
  itemAt: (index: number) => Position
}

/** The `metadata` mapping, or `undefined` when there is none (or it is not a mapping). */
export function metadataOf(frontmatter: Record<string, YamlValue>): Record<string, YamlValue> | undefined {
  const metadata = frontmatter.metadata
  return isYamlMapping(metadata) ? metadata : undefined
}

/** Splits a comma-separated value into its trimmed, non-empty items. */
export function splitList(value: string): string[] {
  return value.split(',').map(item => item.trim()).filter(Boolean)
}

/**
 * Reads `metadata[key]` as a comma-separated list. `undefined` when the key
 * is absent or its value is not a string (which `metadata-invalid` reports).
 */
export function metadataList(frontmatter: Record<string, YamlValue>, key: string, doc: YamlDocument, source: string): MetadataList | undefined {
  const value = metadataOf(frontmatter)?.[key]
  if (typeof value !== 'string')
    return undefined
  const items = splitList(value)
  let at: Position | undefined
  let itemAt: Position[] | undefined
  const valueAt = () => at ??= doc.locate(['metadata', key])
  return { key, items, at: valueAt, itemAt: index => (itemAt ??= locateItems(source, valueAt(), items))[index] ?? valueAt() }
}

/**
 * Where each item of a one-line list value starts: searched in order on the
 * value's line, so a quoted value or one with escapes still gets the right
 * column whenever the item text appears as written.
 */
function locateItems(source: string, at: Position, items: readonly string[]): Position[] {
  const line = source.split('\n')[at.line - 1] ?? ''
  let from = at.column - 1
  return items.map((item) => {
    const index = line.indexOf(item, from)
    if (index < 0)
      return at
    from = index + item.length
    return { line: at.line, column: index + 1 }
  })
}

/** The metadata keys that start with `context_trigger.`, in file order. */
export function triggerKeys(frontmatter: Record<string, YamlValue>): string[] {
  return Object.keys(metadataOf(frontmatter) ?? {}).filter(key => key.startsWith(TRIGGER_PREFIX))
}

/** The bundled files a skill declares, in either form, as written (for watching them). */
export function declaredResourcePaths(frontmatter: Record<string, YamlValue>): string[] {
  const declared = frontmatter.resources
  if (Array.isArray(declared))
    return declared.filter((r): r is string => typeof r === 'string')
  const listed = metadataOf(frontmatter)?.[RESOURCES_KEY]
  return typeof listed === 'string' ? splitList(listed) : []
}
