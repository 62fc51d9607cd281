import type { DiagnosticBag } from '../core/diagnostics'
import type { YamlDocument, YamlValue } from '../core/yaml'
import { closest } from '../core/text'
import { isYamlMapping } from '../core/yaml'

/**
 * Validates the `progressive` frontmatter mapping and returns the
 * `always` IDs it lists (unchecked against the body: see {@link checkAlwaysIds}).
 */
export function readProgressive(value: YamlValue, doc: YamlDocument, bag: DiagnosticBag): string[] {
  if (!isYamlMapping(value)) {
    bag.error('progressive-invalid', '"progressive" must be a mapping, e.g. progressive: {} or progressive: { always: [rules] }.', doc.locate(['progressive']))
    return []
  }
  for (const key of Object.keys(value)) {
    if (key !== 'always')
      bag.warning('progressive-unknown-key', `Unknown key "progressive.${key}"; the only key is "always".`, doc.locate(['progressive', key], 'key'))
  }
  if (!('always' in value) || value.always === null)
    return []
  const always = value.always
  if (!Array.isArray(always)) {
    bag.error('always-invalid', '"progressive.always" must be a list of section IDs, e.g. always: [mandatory-rules].', doc.locate(['progressive', 'always']))
    return []
  }
  const ids: string[] = []
  always.forEach((item, index) => {
    const at = () => doc.locate(['progressive', 'always', index])
    if (typeof item !== 'string' || item.trim() === '') {
      bag.error('always-invalid', `"progressive.always" item ${index + 1} must be a non-empty section ID string.`, at())
      return
    }
    if (ids.includes(item)) {
      bag.error('always-duplicate', `"${item}" is listed twice in "progressive.always". Remove the duplicate.`, at())
      return
    }
    ids.push(item)
  })
  return ids
}

/** Reports `always` IDs that name no section of the body. */
export function checkAlwaysIds(always: readonly string[], known: readonly string[], doc: YamlDocument, bag: DiagnosticBag): void {
  const raw = (doc.value as { progressive?: { always?: unknown[] } }).progressive?.always ?? []
  for (const id of always) {
    if (known.includes(id))
      continue
    const guess = closest(id, known)
    bag.error(
      'always-unknown-id',
      `"progressive.always" names "${id}", but no heading has {#${id}}.${guess ? ` Did you mean "${guess}"?` : ''} Known IDs: ${known.join(', ') || '(none)'}.`,
      doc.locate(['progressive', 'always', raw.indexOf(id)]),
    )
  }
}
