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
 * `text` flattened to one line and cut to `max` characters (an ellipsis marks
 * the cut), with `secret` redacted first. Only the head that can be shown is
 * worked on, so a megabyte answer costs what its first line does; the head
 * reaches `secret.length` past `max`, so that a key across the cut is redacted
 * whole (runs of whitespace in it may leave fewer than `max` characters to show).
 */
export function excerptForMessage(text: string, secret?: string, max = 300): string {
  const head = text.length > max ? text.slice(0, max + (secret?.length ?? 0)) : text
  const flat = redactSecret(head, secret).replace(/\s+/g, ' ')
  return flat.length > max || head.length < text.length ? `${flat.slice(0, max)}…` : flat
}

/** `value` as JSON for a message, through {@link excerptForMessage}. */
export function quoteForMessage(value: unknown, secret?: string, max = 80): string {
  let text: string
  try {
    text = typeof value === 'string' ? JSON.stringify(value.slice(0, 2 * max + (secret?.length ?? 0))) : JSON.stringify(value) ?? String(value)
  }
  catch {
    text = String(value)
  }
  return excerptForMessage(text, secret, max)
}
