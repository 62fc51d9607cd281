// Result links come from the knowledge base's `url` mapping, but the component
// does not trust them: a `javascript:` or `data:` URL in an href would run or
// show content the site did not write. Only web URLs become links.

/**
 * `url` resolved against `base` when it is a web link (a relative path, or an
 * absolute `http:`/`https:` URL); `undefined` for any other scheme or a URL
 * that does not parse. The href written is the resolved one, so that what is
 * checked is what the browser follows.
 */
export function safeHref(url: string, base: string): string | undefined {
  let parsed: URL
  try {
    parsed = new URL(url, base)
  }
  catch {
    return undefined
  }
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined
}
