import type { DiagnosticBag, Position } from '../core/diagnostics'
import type { YamlDocument } from '../core/yaml'
import type { YamlValue } from '../core/yaml-value'
import { closest } from '../core/text'
import { isYamlMapping } from '../core/yaml-value'
import { ALWAYS_KEY, metadataList, metadataOf, PROGRESSIVE_KEY } from './metadata-form'

/** A section ID listed in `progressive.always`, and where. */
export interface AlwaysEntry {
  id: string
  /** Where it is listed, worked out only when a diagnostic needs it (locating takes the full YAML parse). */
  at: () => Position
  /** The key that lists it, for messages: `progressive.always` or `metadata.progressive.always`. */
  list: string
}

/**
 * Reads the progressive structure from the `progressive` mapping or its
 * strict form under `metadata` (`progressive: "true"`,
 * `progressive.always: a, b`). `undefined` when the skill is not progressive;
 * else the `always` IDs (unchecked against the body: see {@link checkAlwaysIds}).
 */
export function readProgressive(frontmatter: Record<string, YamlValue>, doc: YamlDocument, bag: DiagnosticBag, source: string): AlwaysEntry[] | undefined {
  const metadata = metadataOf(frontmatter) ?? {}
  const metaKeys = [PROGRESSIVE_KEY, ALWAYS_KEY].filter(key => key in metadata)
  if ('progressive' in frontmatter) {
    if (metaKeys.length > 0)
      bag.error('progressive-invalid', `The progressive structure is given twice, in "progressive" and in "metadata.${metaKeys[0]}". Keep one form.`, doc.locate(['metadata', metaKeys[0]!], 'key'))
    return readMapping(frontmatter.progressive!, doc, bag)
  }
  if (metaKeys.length === 0)
    return undefined
  const flag = metadata[PROGRESSIVE_KEY]
  if (typeof flag === 'string' && flag !== 'true')
    bag.error('progressive-invalid', `"metadata.${PROGRESSIVE_KEY}" must be "true"; to load the body whole, remove it and "metadata.${ALWAYS_KEY}".`, doc.locate(['metadata', PROGRESSIVE_KEY]))
  const list = metadataList(frontmatter, ALWAYS_KEY, doc, source)
  if (!list)
    return []
  const entries: AlwaysEntry[] = []
  const seen = new Set<string>()
  list.items.forEach((id, index) => {
    const at = () => list.itemAt(index)
    if (seen.has(id))
      bag.error('always-duplicate', `"${id}" is listed twice in "metadata.${ALWAYS_KEY}". Remove the duplicate.`, at())
    else entries.push({ id, at, list: `metadata.${ALWAYS_KEY}` })
    seen.add(id)
  })
  return entries
}

/** Validates the `progressive` frontmatter mapping and returns its `always` entries. */
function readMapping(value: YamlValue, doc: YamlDocument, bag: DiagnosticBag): AlwaysEntry[] {
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
  const entries: AlwaysEntry[] = []
  const seen = new Set<string>()
  always.forEach((item, index) => {
    const at = () => doc.locate(['progressive', 'always', index])
    if (typeof item !== 'string' || item.trim() === '') {
      bag.error('always-invalid', `"progressive.always" item ${index + 1} must be a non-empty section ID string.`, at())
      return
    }
    if (seen.has(item)) {
      bag.error('always-duplicate', `"${item}" is listed twice in "progressive.always". Remove the duplicate.`, at())
      return
    }
    seen.add(item)
    entries.push({ id: item, at, list: 'progressive.always' })
  })
  return entries
}

/** Most section IDs one message lists: a long body would otherwise repeat its whole table of contents in each. */
const LISTED_IDS = 20
/** Most unknown IDs that get a "Did you mean": each guess compares the ID with every known one. */
const GUESSED_IDS = 10

/** Reports `always` IDs that name no section of the body. */
export function checkAlwaysIds(always: readonly AlwaysEntry[], known: readonly string[], bag: DiagnosticBag): void {
  const ids = new Set(known)
  const listed = known.length > LISTED_IDS ? `${known.slice(0, LISTED_IDS).join(', ')} and ${known.length - LISTED_IDS} more` : known.join(', ') || '(none)'
  // An ID the list already names is no guess: writing it in would make an always-duplicate.
  const named = new Set(always.map(entry => entry.id))
  const guesses = known.filter(id => !named.has(id))
  let guessed = 0
  for (const { id, at, list } of always) {
    if (ids.has(id))
      continue
    const guess = guessed++ < GUESSED_IDS ? closest(id, guesses) : undefined
    bag.error(
      'always-unknown-id',
      `"${list}" names "${id}", but no heading has {#${id}}.${guess ? ` Did you mean "${guess}"?` : ''} Known IDs: ${listed}.`,
      at(),
    )
  }
}
