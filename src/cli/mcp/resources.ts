// The resources of `skill-kit mcp`. Skills follow the MCP skills extension
// (io.modelcontextprotocol/skills): each file at `skill://<name>/<path>`, the
// skill's own file at `.../SKILL.md`, and `skills/list` / `skills/get`
// entries carrying the verbatim frontmatter and every file's sha256 digest
// and size. Knowledge bases offer their routed index pages, which link to
// `references/<path>`: each document's published body.

import type { ServedKnowledge } from './knowledge'
import type { ServedSkill, SkillCatalog } from './skills'
import { quoteForMessage } from '../../runtime/redact'
import { insidePath, OutsideError } from './contain'
import { knowledgeUri, parseUri, skillUri } from './uris'

/** A resource as `resources/list` gives it. */
export interface McpResource {
  uri: string
  name: string
  title?: string
  description?: string
  mimeType: string
  size?: number
}

/** One read resource: text, or base64 bytes for a file that is not UTF-8 text. */
export type ResourceContent = { uri: string, mimeType: string, text: string } | { uri: string, mimeType: string, blob: string }

/** A skill as the skills extension describes it (`skills/list`, `skills/get`). */
export interface SkillEntry {
  uri: string
  frontmatter: Record<string, unknown>
  resources: { uri: string, digest: string, size: number }[]
}

/** What the resources are made of. */
export interface ServedResources {
  catalog: SkillCatalog | undefined
  knowledge: readonly ServedKnowledge[]
}

const MIME_TYPES: Record<string, string> = {
  md: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  html: 'text/html',
  csv: 'text/csv',
}

function mimeType(path: string, text: boolean): string {
  const extension = /\.([^./]+)$/.exec(path)?.[1]?.toLowerCase() ?? ''
  return MIME_TYPES[extension] ?? (text ? 'text/plain' : 'application/octet-stream')
}

/** The skill's entry: frontmatter as written, every file with its digest. */
export function skillEntry(catalog: SkillCatalog, skill: ServedSkill): SkillEntry {
  return {
    uri: skillUri(skill.name, 'SKILL.md'),
    frontmatter: { ...skill.compiled.frontmatter, name: skill.name, description: skill.compiled.description },
    resources: catalog.files(skill).map(file => ({ uri: skillUri(skill.name, file.path), digest: file.digest, size: file.size })),
  }
}

/** The resources to list: each skill's `SKILL.md`, each knowledge base's entry page, llms.txt and index pages. */
export async function listResources({ catalog, knowledge }: ServedResources): Promise<McpResource[]> {
  const resources: McpResource[] = []
  for (const skill of catalog?.skills() ?? []) {
    const own = catalog!.files(skill).find(f => f.path === 'SKILL.md')
    resources.push({ uri: skillUri(skill.name, 'SKILL.md'), name: skill.name, description: skill.compiled.description, mimeType: 'text/markdown', ...(own ? { size: own.size } : {}) })
  }
  for (const base of knowledge) {
    let pages
    try {
      pages = await base.pages()
    }
    catch {
      // A base with no index yet lists nothing; reading one of its pages says why.
      continue
    }
    const page = (path: string, title: string, text: string): McpResource => ({ uri: knowledgeUri(base.name, path), name: `${base.name}/${path}`, title, mimeType: mimeType(path, true), size: Buffer.byteLength(text) })
    resources.push(page('SKILL.md', `${base.name}: start here`, pages.skill), page('llms.txt', `${base.name}: llms.txt`, pages.llmsTxt))
    for (const [path, text] of Object.entries({ ...pages.pages, ...pages.catalog }))
      resources.push(page(path, `${base.name}: ${path}`, text))
  }
  return resources
}

/** Text when the bytes are UTF-8, else base64. */
function content(uri: string, path: string, bytes: Uint8Array): ResourceContent {
  const text = new TextDecoder('utf-8').decode(bytes)
  if (!text.includes('\uFFFD') && !text.includes('\0'))
    return { uri, mimeType: mimeType(path, true), text }
  return { uri, mimeType: mimeType(path, false), blob: Buffer.from(bytes).toString('base64') }
}

async function readKnowledge(base: ServedKnowledge, uri: string, path: string): Promise<ResourceContent> {
  const text = (value: string) => ({ uri, mimeType: mimeType(path, true), text: value })
  if (path.startsWith('references/')) {
    const body = base.document(path.slice('references/'.length))
    if (body === undefined)
      throw new OutsideError(`${quoteForMessage(uri)} is not a document of "${base.name}": references/ holds the documents by their path in the knowledge folder, as the index pages link them.`)
    return text(body)
  }
  const pages = await base.pages()
  const page = path === 'SKILL.md' ? pages.skill : path === 'llms.txt' ? pages.llmsTxt : pages.pages[path] ?? pages.catalog[path]
  if (page === undefined)
    throw new OutsideError(`${quoteForMessage(uri)} is not a page of "${base.name}". Start at ${knowledgeUri(base.name, 'SKILL.md')}.`)
  return text(page)
}

/** Reads a resource; an unknown or refused URI is an {@link OutsideError} saying why. */
export async function readResource({ catalog, knowledge }: ServedResources, uri: string): Promise<ResourceContent> {
  const parsed = parseUri(uri)
  if (parsed?.scheme === 'skill' && catalog) {
    const skill = catalog.find(parsed.owner)
    if (!skill)
      throw new OutsideError(`No skill is named ${quoteForMessage(parsed.owner)}. Skills: ${catalog.skills().map(s => s.name).join(', ') || '(none)'}.`)
    return content(uri, parsed.path, catalog.read(skill, parsed.path))
  }
  if (parsed?.scheme === 'knowledge') {
    const base = knowledge.find(k => k.name === parsed.owner)
    // The pages link with `../references/…`: a client may send the dot segments as they are.
    const path = insidePath(parsed.path)
    if (base && path === undefined)
      throw new OutsideError(`${quoteForMessage(uri)} is outside "${base.name}": its pages and documents are named from ${knowledgeUri(base.name, 'SKILL.md')} down, without going above it.`)
    if (base)
      return readKnowledge(base, uri, path!)
  }
  const served = [catalog ? 'skill://<name>/SKILL.md' : '', ...knowledge.map(k => knowledgeUri(k.name, 'SKILL.md'))].filter(Boolean)
  throw new OutsideError(`${quoteForMessage(uri)} is not a resource of this server. It serves ${served.join(', ') || 'nothing'}.`)
}
