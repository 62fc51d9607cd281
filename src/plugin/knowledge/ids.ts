// How knowledge modules are imported and spelled: `virtual:skill-kit/knowledge/<name>`,
// `./folder?knowledge`, and their document bodies (`<file>?knowledge-document`,
// versioned ids in the dev server).

import type { FolderTarget } from '../folders/ids'
import { relative, resolve } from 'node:path'
import { hash } from '../../core/hash'
import { folderModuleIds } from '../folders/ids'

export const KNOWLEDGE_PREFIX = 'virtual:skill-kit/knowledge/'
/** How knowledge modules spell their resolved ids. */
export const knowledgeIds = folderModuleIds('knowledge')
export const BODY_QUERY = '?knowledge-document'
/**
 * What Vite, Rollup and rolldown resolve `<file>.md?knowledge-document` to:
 * `\0skill-kit-knowledge:body:<file>.md.js`. Kept as `<file>.md?…`, the body
 * would be claimed by the site's own Markdown plugins, which strip the query
 * (VitePress compiles it as a Vue component, Astro as a page).
 */
const BUILD_BODY_PREFIX = `${knowledgeIds.prefix}body:`

/**
 * The resolved id of the body of the Markdown file `file` (absolute) in Vite,
 * Rollup and rolldown: its path relative to `root`, since bundles print
 * virtual ids as they are (region comments) and must name none of the build
 * machine's folders.
 */
export function buildBodyId(file: string, root: string): string {
  return `${BUILD_BODY_PREFIX}${relative(root, file).replace(/\\/g, '/')}.js`
}

/** The file (absolute) of a {@link buildBodyId}; `undefined` for any other id. */
export function buildBodyFile(id: string, root: string): string | undefined {
  return id.startsWith(BUILD_BODY_PREFIX) && id.endsWith('.js') ? resolve(root, id.slice(BUILD_BODY_PREFIX.length, -'.js'.length)) : undefined
}
/**
 * A document body in the Vite dev server: `\0skill-kit-knowledge:document:<version>:<document ID>.js`,
 * versioned (see {@link bodyVersion}) so that an updated index imports new
 * modules, never a stale leaf, and with no file for Vite's own HMR to chase.
 * The ID is only there to be read (in the browser's network panel).
 */
const DEV_BODY_PREFIX = `${knowledgeIds.prefix}document:`

/** The dev server's id of the body of version `version` of document `id`. */
export function devBodyId(version: string, id: string): string {
  return `${DEV_BODY_PREFIX}${version}:${id.replace(/[^\w/-]/g, '_')}.js`
}

/** The version of a {@link devBodyId}; `undefined` for any other id. */
export function devBodyVersion(id: string): string | undefined {
  if (!id.startsWith(DEV_BODY_PREFIX) || !id.endsWith('.js'))
    return undefined
  const rest = id.slice(DEV_BODY_PREFIX.length)
  return rest.includes(':') ? rest.slice(0, rest.indexOf(':')) : undefined
}

/** A knowledge base: a folder imported with `?knowledge`, or a name from the options. */
export type KnowledgeTarget = FolderTarget

/** The id a knowledge module resolves to in this bundler. */
export const knowledgeModuleId = knowledgeIds.id

/** The knowledge base a resolved id stands for. */
export const parseKnowledgeModuleId = knowledgeIds.parse

/** The version of a document body in module ids: its content's hash, so a new body never hides behind an old id. */
export function bodyVersion(body: string): string {
  return hash(body).slice(0, 12)
}
