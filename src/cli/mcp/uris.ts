// The resource URIs of `skill-kit mcp`: `skill://<name>/<path>` for a skill's
// files (the MCP skills extension's scheme; the skill file is always
// `SKILL.md`), `knowledge://<base>/<path>` for a knowledge base's routed pages
// and documents. Parsed by hand, not by URL: its dot-segment rules would turn
// `skill://a/../b` into another path before the server could refuse it.

/** The URI of a skill's file. */
export function skillUri(name: string, path: string): string {
  return `skill://${name}/${path.split('/').map(encodeURIComponent).join('/')}`
}

/** The URI of a knowledge base's page or document. */
export function knowledgeUri(base: string, path: string): string {
  return `knowledge://${encodeURIComponent(base)}/${path.split('/').map(encodeURIComponent).join('/')}`
}

/** A resource URI of this server, taken apart; `undefined` when it is not one. */
export interface ParsedUri {
  scheme: 'skill' | 'knowledge'
  /** The skill's or knowledge base's name. */
  owner: string
  /** The `/`-separated path after it, decoded, as the client sent it (`..` kept, for the server to refuse). */
  path: string
}

/** Takes a `skill://` or `knowledge://` URI apart. */
export function parseUri(uri: string): ParsedUri | undefined {
  const match = /^(skill|knowledge):\/\/([^/?#]+)\/([^?#]*)$/.exec(uri)
  if (!match)
    return undefined
  try {
    return { scheme: match[1] as ParsedUri['scheme'], owner: decodeURIComponent(match[2]!), path: match[3]!.split('/').map(decodeURIComponent).join('/') }
  }
  catch {
    return undefined
  }
}
