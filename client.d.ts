// Module types for skill imports. Add "unplugin-skill-kit/client" to "types"
// in tsconfig.json, or reference it: /// <reference types="unplugin-skill-kit/client" />

declare module '*/SKILL.md' {
  const skill: import('unplugin-skill-kit/runtime').Skill
  export default skill
}

declare module '*.skill.md' {
  const skill: import('unplugin-skill-kit/runtime').Skill
  export default skill
}

declare module '*.md?cover' {
  /** The cover: hint, preamble, bundled files, Always-on sections and the section index. */
  const cover: string
  export default cover
}

declare module '*.md?sections' {
  /** Section ID to section with its content and lines. */
  const sections: import('unplugin-skill-kit/runtime').SectionMap
  export default sections
}

declare module '*.md?meta' {
  /** Everything but the cover and section text: what a registry lists. */
  const meta: import('unplugin-skill-kit/runtime').SkillMeta
  export default meta
}

// TypeScript allows one `*` per pattern, so `?section=<id>` is typed when it
// ends with the `&section` marker: `./x/SKILL.md?section=core-tools&section`.
declare module '*&section' {
  /** The section's content, verbatim from its heading line. */
  const content: string
  export default content
}

declare module 'virtual:skill-kit/skills' {
  /** Every skill of the registry folders: listing data at hand, cover and sections loaded on demand. */
  const skills: import('unplugin-skill-kit/runtime').RegistrySkill[]
  export default skills
}

// A folder of Markdown (with or without skill-kit.json), imported as a searchable knowledge base.
declare module '*?knowledge' {
  /** Documents, search and retrieval; the snapshot and bodies load on first use. */
  const knowledge: import('unplugin-skill-kit/runtime').KnowledgeModule
  export default knowledge
  /** Every document's metadata (no bodies), sorted by ID. */
  export const documents: readonly import('unplugin-skill-kit/runtime').KnowledgeDocumentInfo[]
  export const search: import('unplugin-skill-kit/runtime').KnowledgeBase['search']
  export const retrieve: import('unplugin-skill-kit/runtime').KnowledgeBase['retrieve']
  /** Names the folder of the query model at run time (a Node bundle built without includeModel, or another folder). */
  export const useModel: import('unplugin-skill-kit/runtime').KnowledgeModule['useModel']
}

// A knowledge folder's routed index pages: SKILL.md, index pages, the catalog, llms.txt and the cards.
declare module '*?routes' {
  /** Every page and card; in the Vite dev server, updated in place (see `onUpdate`). */
  const routes: import('unplugin-skill-kit/runtime').RoutesModule
  export default routes
  /** `SKILL.md`: Agent Skills frontmatter, then the top index. */
  export const skill: import('unplugin-skill-kit/runtime').RoutesModule['skill']
  /** `indexes/page-N.md` → Markdown. */
  export const pages: import('unplugin-skill-kit/runtime').RoutesModule['pages']
  /** `indexes/catalog.md`, `indexes/catalog-N.md` → Markdown. */
  export const catalog: import('unplugin-skill-kit/runtime').RoutesModule['catalog']
  export const llmsTxt: import('unplugin-skill-kit/runtime').RoutesModule['llmsTxt']
  /** Document ID → card. */
  export const cards: import('unplugin-skill-kit/runtime').RoutesModule['cards']
  /** Calls a handler after each update in the Vite dev server; never in a build. */
  export const onUpdate: import('unplugin-skill-kit/runtime').OnRoutesUpdate
}

// The routed pages of a knowledge base named in the plugin options. Declared before
// 'virtual:skill-kit/knowledge/*', which also matches it: of two patterns with prefixes
// of one length, TypeScript takes the first declared.
declare module 'virtual:skill-kit/knowledge/*/routes' {
  export { catalog, cards, default, llmsTxt, onUpdate, pages, skill } from 'routes?routes'
}

// A knowledge base named in the plugin options: knowledge: { guides: './guides' }.
// The same module shape as a folder import (any specifier ending in ?knowledge names it).
declare module 'virtual:skill-kit/knowledge/*' {
  export { default, documents, retrieve, search, useModel } from 'knowledge?knowledge'
}
