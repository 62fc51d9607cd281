// Redirects from embedding and chat servers are never followed: fetch would
// send the request again, key and documents included, wherever `Location`
// points (another host, or plain HTTP), and the https-or-loopback rule checks
// only the configured base URL. Requests use `redirect: 'manual'`; this reads
// what the server answered, for a message that says where it pointed.

/** The statuses by which a server redirects a request. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

/** The part of a fetch `Response` a redirect is read from (all optional, for hand-made fetches). */
export interface RedirectResponse {
  status: number
  type?: string
  headers?: { get: (name: string) => string | null }
}

/** What a redirect answer pointed to. */
export type Redirect =
  /** In browsers `redirect: 'manual'` hides the redirect (`type` `opaqueredirect`, status 0). */
  | { kind: 'hidden' }
  | { kind: 'no-location', status: number }
  /** `origin` as the server wrote it (scheme, host and port; no user or password), for quoting. */
  | { kind: 'other-origin', status: number, origin: string, downgrade: boolean }
  /** `path` as the server wrote it. */
  | { kind: 'same-origin', status: number, path: string }

/** Scheme, optional user info, and host with port, of an absolute or scheme-relative URL. */
const AUTHORITY = /^([a-z][\w+.-]*:)?\/\/(?:[^@/?#\\]*@)?([^/?#\\]*)/i

/** The redirect `response` is, for a request to `requestUrl`; `undefined` when it is none. */
export function readRedirect(response: RedirectResponse, requestUrl: string): Redirect | undefined {
  if (response.type === 'opaqueredirect')
    return { kind: 'hidden' }
  const { status } = response
  if (!REDIRECT_STATUSES.has(status))
    return undefined
  const location = response.headers?.get('location')?.trim()
  let target: URL
  try {
    target = new URL(location || '', requestUrl)
  }
  catch {
    return { kind: 'no-location', status }
  }
  if (!location)
    return { kind: 'no-location', status }
  const from = new URL(requestUrl)
  // Compared on the parsed URLs (the decision), quoted as written (URL lower-cases hosts, which would hide a key there from redaction).
  if (target.protocol === from.protocol && target.host === from.host)
    return { kind: 'same-origin', status, path: location.replace(AUTHORITY, '') }
  const written = AUTHORITY.exec(location)
  const origin = written ? `${written[1] ?? from.protocol}//${written[2]}` : `${target.protocol}//${target.host}`
  return { kind: 'other-origin', status, origin, downgrade: from.protocol === 'https:' && target.protocol !== 'https:' }
}

/**
 * `redirect` as a clause after "answered", `quote` bounding and redacting
 * what the server wrote: `HTTP 307, a redirect to another origin ("https://…"), which is never followed`.
 */
export function redirectClause(redirect: Redirect, quote: (text: string) => string): string {
  switch (redirect.kind) {
    case 'hidden':
      return 'a redirect, which the browser hides and which is never followed'
    case 'no-location':
      return `HTTP ${redirect.status}, a redirect without a usable Location, which is never followed`
    case 'same-origin':
      return `HTTP ${redirect.status}, a redirect to ${quote(redirect.path)} on the same server, which is not followed`
    case 'other-origin':
      return `HTTP ${redirect.status}, a redirect to ${redirect.downgrade ? 'plain HTTP at' : 'another origin,'} ${quote(redirect.origin)}, which is never followed`
  }
}
