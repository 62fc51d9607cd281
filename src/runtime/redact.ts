// What a server or a model says may carry the API key we sent it (echoed in a
// status text, an answer, a vector): every text of theirs that we print, cache
// or write goes through here first. In the runtime, which queries servers
// too, so that the build and the runtime share one redactor.

/** What stands in for the key. */
export const REDACTED = '[redacted]'

/**
 * `text` with every occurrence of `secret` replaced by {@link REDACTED}
 * (`Bearer <secret>` becomes `Bearer [redacted]`). No secret, or an empty one: `text` as it is.
 */
export function redactSecret(text: string, secret: string | undefined): string {
  return secret && text.includes(secret) ? text.split(secret).join(REDACTED) : text
}

/** A JSON value with {@link redactSecret} applied to every string in it, keys included. */
export function redactJson<T>(value: T, secret: string | undefined): T {
  if (!secret)
    return value
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string')
      return redactSecret(item, secret)
    if (Array.isArray(item))
      return item.map(walk)
    if (item && typeof item === 'object')
      return Object.fromEntries(Object.entries(item).map(([key, inner]) => [redactSecret(key, secret), walk(inner)]))
    return item
  }
  return walk(value) as T
}

/**
 * `value` as JSON for a message: flattened to one line and cut to `max`
 * characters (an ellipsis marks the cut), with `secret` redacted first.
 */
export function quoteForMessage(value: unknown, secret?: string, max = 80): string {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  }
  catch {
    text = String(value)
  }
  const flat = redactSecret(text, secret).replace(/\s+/g, ' ')
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}
