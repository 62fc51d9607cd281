// Inline Markdown as the text it renders to, for titles, headings and
// excerpts. Every pattern's span is bounded: a document is untrusted, and an
// unbounded lazy match over a long line of unclosed markers (`*a *a *a …`)
// takes quadratic time (80 kB took 10–25 s), where these take milliseconds.

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: '\'', nbsp: ' ', '#39': '\'' }

/** Longest link text, link target, tag or emphasised run these patterns look across. */
const SPAN = 300

// A link's text and a tag stop at the next `[` or `<`: a line of `[a[a[a…` is then read in one pass.
const LINK = new RegExp(`!?\\[([^[\\]\\n]{0,${SPAN}})\\]\\([^()\\n]{0,${SPAN}}\\)`, 'g')
const REFERENCE_LINK = new RegExp(`\\[([^[\\]\\n]{1,${SPAN}})\\]\\[[^[\\]\\n]{0,${SPAN}}\\]`, 'g')
const TAG = new RegExp(`</?[a-z][^<>\\n]{0,${SPAN}}>`, 'gi')
// `*`, `**`, `~~` around text; `_` only at word edges (`snake_case_name` stays whole, as CommonMark reads it).
// The text between stops at the next marker of its kind, so a line of unclosed markers is read in one pass
// (a span of any character took 300 steps a marker); `**bold *it* text**` keeps its outer stars.
const EMPHASIS = new RegExp(`(\\*{1,3})([^*\\n]{1,${SPAN}}?)\\1|(~~)([^~\\n]{1,${SPAN}}?)~~|(?<![\\p{L}\\p{N}_])(_{1,3})([^_\\n]{1,${SPAN}}?)\\5(?![\\p{L}\\p{N}_])`, 'gu')

/**
 * The text of inline Markdown: links to their text (first: their text may
 * hold code spans), code spans' contents as written, HTML tags and emphasis
 * markers dropped, a few entities and backslash escapes decoded.
 */
export function inlineText(markdown: string): string {
  return markdown.replace(LINK, '$1').replace(REFERENCE_LINK, '$1').split(/(`+[^`]*`+)/).map((part, i) => i % 2 === 1
    ? part.replace(/^`+\s?|\s?`+$/g, '')
    : part
        .replace(TAG, ' ')
        // An unmatched group is replaced by nothing: the one that matched is the text.
        .replace(EMPHASIS, '$2$4$6')
        .replace(/&(amp|lt|gt|quot|apos|nbsp|#39);/g, (_, name: string) => ENTITIES[name]!)
        .replace(/\\([!-/:-@[-`{-~])/g, '$1'))
    .join('')
}
