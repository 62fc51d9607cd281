// Routed index pages as `?routes` and `virtual:skill-kit/knowledge/<name>/routes`
// imports give them: types only, so that apps type them without any code.

/** What an index page says about one document. File path and coverage come from the program. */
export interface RouteCard {
  id: string
  /** Slash-separated path relative to the knowledge folder (the reference is `references/<path>`). */
  path: string
  title: string
  /** What the document covers (at most 350 characters). */
  summary: string
  /** Concrete tasks the document helps with (1–4 from a model; none from the offline router). */
  tasks: string[]
  /** The index groups listing the document, in order. */
  topics: string[]
  /** The document's size in tokens (an estimate, as every page states). */
  tokens: number
}

/** A routed skill: Markdown strings keyed by their path relative to the skill folder, and each document's card. */
export interface RoutesModule {
  /** `SKILL.md`: Agent Skills frontmatter, then the top index. */
  skill: string
  /** `indexes/<slug>.md` (a slug of the page's topic, unique): thematic pages, leaves (documents) first, then parents (pages). */
  pages: Record<string, string>
  /** `indexes/catalog.md` and `indexes/catalog-N.md`: every document by path. */
  catalog: Record<string, string>
  /** `llms.txt` (llmstxt.org) of the same top index. */
  llmsTxt: string
  /** Each document's card, by document ID. */
  cards: Record<string, RouteCard>
}

/**
 * Calls `handler` each time the Vite dev server swaps new pages into the
 * module (a document added, edited, removed or renamed, `skill-kit.json`
 * edited): the named exports and the default export already hold them, and
 * objects the app kept (`pages`, `catalog`, `cards`) were updated in place.
 * Never called in a build. Returns a function that stops the calls.
 */
export type OnRoutesUpdate = (handler: (routes: RoutesModule) => void) => () => void
