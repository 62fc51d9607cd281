// What a model (or a document) says, made plain text before it reaches a
// routed page, llms.txt or a card: a routing model that a document talked into
// writing `[the real docs](https://evil.example)` must not leave a link, image,
// HTML or path that every agent reading the pages follows. Paths and links on
// the pages are the program's; any other text goes through here, when an
// answer is validated and again when pages are rendered (a cache edited by
// hand, or written by an older version, passes the second).

/**
 * Characters that are not text on a page: C0 and C1 controls, bidi embeddings,
 * overrides, isolates and marks (which can make a line read otherwise than it
 * is stored), zero-width spaces, word joiners, the BOM, soft hyphens and lone
 * surrogates. NEL (U+0085) is a line break: {@link SPACES} makes it a space.
 * Zero-width (non-)joiners stay: scripts such as Persian need them.
 */
const INVISIBLE = /[\u0000-\u0008\u000E-\u001F\u007F-\u0084\u0086-\u009F\u00AD\u061C\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

/** Whitespace and separators of every kind (U+2028, U+2029, NEL, no-break spaces included): one space each run. */
const SPACES = /[\s\u0085]+/g

/**
 * Markup that points somewhere or runs as HTML, each reduced to its text.
 * Targets stop at the next bracket or parenthesis (one nested pair allowed,
 * as in `javascript:alert(1)`), so a run of unclosed `[a](` is scanned in linear time.
 */
const MARKUP: readonly [RegExp, string][] = [
  // HTML comments (an unclosed one hides the rest), then tags, autolinks (`<https://…>`) and declarations:
  // `<` then a letter, `/`, `!` or `?`, as HTML starts them, so that `a < b and c > d` keeps its words.
  [/<!--[\s\S]*?(?:-->|$)/g, ''],
  [/<[a-z/!?][^<>]*>/gi, ''],
  // Images to their alt text, links to their labels: inline, then reference-style.
  [/!\[([^[\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, '$1'],
  [/\[([^[\]]*)\]\((?:[^()]|\([^()]*\))*\)/g, '$1'],
  [/!?\[([^[\]]*)\]\[[^[\]]*\]/g, '$1'],
  // Reference definitions (`[id]: https://…`), whole.
  [/\[[^[\]]*\]:\s*\S+/g, ''],
]

/** Web addresses, taken out only once no markup is left, so that a link's target is never cut from under it. */
const ADDRESSES: readonly [RegExp, string][] = [
  // Web addresses GFM makes links of: any `scheme://…`, `www.…`, and `mailto:`/`xmpp:` addresses.
  // A scheme is at most 32 characters, so that `a.a.a.…` is not scanned to its end from every letter.
  [/\b[a-z][a-z0-9+.-]{0,31}:\/\/\S*/gi, ''],
  [/\bwww\.\S*/gi, ''],
  [/\b(?:mailto|xmpp):\S*/gi, ''],
]

/** Passes over text whose removals make new markup (`[[a](b)](c)`): each pass shortens it, few are ever needed. */
const MAX_PASSES = 16

/**
 * `text` as one line of plain text: links and images reduced to their labels,
 * HTML, web addresses, reference definitions, controls, bidi and zero-width
 * characters removed, every run of whitespace or separators one space. What
 * remains may hold stray brackets or emphasis marks; {@link escapeMarkdown}
 * escapes those where text becomes Markdown.
 */
export function inertText(text: string): string {
  let out = text.replace(INVISIBLE, '')
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const before = out
    for (const [pattern, replacement] of MARKUP)
      out = out.replace(pattern, replacement)
    if (out !== before)
      continue
    for (const [pattern, replacement] of ADDRESSES)
      out = out.replace(pattern, replacement)
    if (out === before)
      break
  }
  return out.replace(SPACES, ' ').trim()
}

/**
 * Characters that make inline Markdown point somewhere or leave the text,
 * backslash-escaped: brackets (links, images), angle brackets (HTML,
 * autolinks), `@` (GFM's e-mail autolinks), code ticks (which could pair with
 * the program's own on the line) and the backslash itself. Emphasis stays: it
 * only formats, and `max_tokens` reads better unescaped.
 */
const INLINE = /[\\`[\]<>@]/g

/** A line start that Markdown reads as a block (heading, quote, list item, rule, fence). */
const BLOCK_START = /^(?:#{1,6}(?=\s|$)|[>+=*_~-]|\d{1,9}(?=[.)]))/

/**
 * Text escaped so that Markdown shows it as it is (no link, image, HTML,
 * code span or block of its own), at the start of a line or within one.
 * It takes nothing out: text from a model or a document is made {@link inertText} first.
 */
export function escapeMarkdown(text: string): string {
  return text.replace(INLINE, '\\$&').replace(BLOCK_START, match => (/^\d/.test(match) ? `${match}\\` : `\\${match}`))
}
