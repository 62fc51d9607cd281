/** Most characters of an index page's slug (a file name an agent reads in a link). */
const MAX_SLUG = 60

/** Slugs the layout writes itself (the catalog), which a topic may not take. */
const RESERVED = /^catalog(?:-\d+)?$/

/**
 * A page title as a file name: lowercase ASCII letters and digits joined by
 * hyphens, at most {@link MAX_SLUG} characters, cut at a hyphen. Accents are
 * dropped (`Évènements` → `evenements`); a title with no Latin letter or digit is `topic`.
 */
export function slugOf(title: string): string {
  const plain = title.normalize('NFKD').replace(/[\u0300-\u036F]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')
  const cut = plain.length <= MAX_SLUG ? plain : plain.slice(0, plain.lastIndexOf('-', MAX_SLUG) > 0 ? plain.lastIndexOf('-', MAX_SLUG) : MAX_SLUG)
  const slug = cut || 'topic'
  return RESERVED.test(slug) ? `topic-${slug}` : slug
}

/**
 * Unique slugs in the order titles are asked for: a slug already given gets
 * `-2`, `-3`… so the same titles in the same order always get the same names.
 */
export function slugger(): (title: string) => string {
  const given = new Set<string>()
  return (title) => {
    const base = slugOf(title)
    let slug = base
    for (let n = 2; given.has(slug); n++)
      slug = `${base}-${n}`
    given.add(slug)
    return slug
  }
}
