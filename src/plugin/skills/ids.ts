/** Which module of a skill an import asks for. */
export type SkillQuery =
  | { kind: 'skill' }
  | { kind: 'cover' }
  | { kind: 'sections' }
  | { kind: 'meta' }
  | { kind: 'section', id: string }

/** The query keys this plugin answers; any other key (`?raw`, `?url`, …) belongs to someone else. */
const OURS = new Set(['cover', 'sections', 'section', 'meta'])
/** Keys bundlers add on their own (Vite's HMR timestamp, import marker, version hash). */
const BUNDLER_KEYS = new Set(['t', 'v', 'import', 'used'])

/** A parsed skill import: the file, what is asked of it, or why the query is wrong. */
export interface ParsedId {
  file: string
  query: SkillQuery | { kind: 'invalid', reason: string }
}

/**
 * Reads `path?query` as a skill import. Returns `undefined` for ids that are
 * not `.md` files or carry a query key this plugin does not own.
 */
export function parseSkillId(id: string): ParsedId | undefined {
  const mark = id.indexOf('?')
  const file = mark < 0 ? id : id.slice(0, mark)
  if (!file.toLowerCase().endsWith('.md'))
    return undefined
  // The spellings canonicalId makes, read without URLSearchParams: every module is asked about several times.
  const search = mark < 0 ? '' : id.slice(mark + 1)
  if (search === '')
    return { file, query: { kind: 'skill' } }
  if (search === 'cover' || search === 'sections' || search === 'meta')
    return { file, query: { kind: search } }
  const params = new URLSearchParams(search)
  const keys = [...new Set(params.keys())].filter(key => !BUNDLER_KEYS.has(key))
  if (keys.some(key => !OURS.has(key)))
    return undefined
  if (keys.length > 1)
    return { file, query: { kind: 'invalid', reason: `Use one skill query at a time; this import has ?${keys.join('&')}.` } }
  const key = keys[0]
  if (key === undefined)
    return { file, query: { kind: 'skill' } }
  if (key === 'section') {
    const section = params.get('section') ?? ''
    return section
      ? { file, query: { kind: 'section', id: section } }
      : { file, query: { kind: 'invalid', reason: '?section needs a section ID, e.g. ?section=core-tools.' } }
  }
  return { file, query: { kind: key as 'cover' | 'sections' | 'meta' } }
}

/** One spelling per module: `file`, `file?cover`, `file?section=<encoded id>`. */
export function canonicalId(file: string, query: SkillQuery): string {
  if (query.kind === 'skill')
    return file
  if (query.kind === 'section')
    return `${file}?section=${encodeURIComponent(query.id)}`
  return `${file}?${query.kind}`
}
