// What one knowledge base's routings keep between them (the dev server's and
// watch builds' rebuilds): each document parsed, by its file and content hash,
// and the cards made of it. An edit then parses and cards that document only;
// grouping and laying out the pages again is cheap.

import type { KnowledgeDocument } from '../knowledge/document'
import type { KnowledgeFolder, ParsedDocument } from '../knowledge/load-folder'
import { hash } from '../core/hash'
import { loadKnowledgeFolder } from '../knowledge/load-folder'

/** What one routing did, for messages and tests. */
export interface RoutingStats {
  /** Documents parsed (new or changed since the last routing with the same memo), by path. */
  parsed: string[]
  /**
   * Documents whose card was made (not reused from the memo), by path. A
   * document with no cached answer (`cacheOnly`) is looked up again each time,
   * so that answers a build cached meanwhile are taken.
   */
  carded: string[]
  /** `cacheOnly`: documents with no cached answer of the routing model, described by the offline router. */
  uncached: string[]
  /** `cacheOnly`: index pages with no cached summary, summarized by the offline router. */
  uncachedPages: number
}

/** Empty stats, to be filled by a routing. */
export function newRoutingStats(): RoutingStats {
  return { parsed: [], carded: [], uncached: [], uncachedPages: 0 }
}

/**
 * Parsed documents and their cards, kept across routings of one knowledge
 * folder. A document is reused while its file's text is the same; a card
 * belongs to the very document object it was made from (a `WeakMap`), so a
 * changed document never meets an old card.
 */
export class RoutingMemo {
  private readonly files = new Map<string, { hash: string, parsed: ParsedDocument }>()
  private readonly cards = new WeakMap<KnowledgeDocument, Map<string, unknown>>()

  /**
   * The folder's documents, as `loadKnowledgeFolder` reads them, parsing only
   * files that are new or changed since the last load; `onParse` hears of
   * each file parsed. Files it no longer finds are forgotten.
   */
  loadFolder(dir: string, maxDocumentBytes: number | undefined, onParse?: (file: string) => void): KnowledgeFolder {
    const seen = new Set<string>()
    const folder = loadKnowledgeFolder(dir, {
      maxDocumentBytes,
      parse: (file, text, parse) => {
        seen.add(file)
        const key = hash(text)
        const known = this.files.get(file)
        if (known?.hash === key)
          return known.parsed
        onParse?.(file)
        const parsed = parse()
        this.files.set(file, { hash: key, parsed })
        return parsed
      },
    })
    for (const file of [...this.files.keys()]) {
      if (!seen.has(file))
        this.files.delete(file)
    }
    return folder
  }

  /**
   * The card `make` gives for `document` under `router` (what the card
   * depends on besides the document: offline, or the model's settings), made
   * once per document object. A promise that rejects or resolves to
   * `undefined` (no answer yet) is not kept.
   */
  card<T>(document: KnowledgeDocument, router: string, make: () => T): T {
    let byRouter = this.cards.get(document)
    if (!byRouter)
      this.cards.set(document, byRouter = new Map())
    if (byRouter.has(router))
      return byRouter.get(router) as T
    const made = make()
    byRouter.set(router, made)
    if (made instanceof Promise) {
      const forget = () => byRouter.get(router) === made && byRouter.delete(router)
      made.then(value => value === undefined && forget(), forget)
    }
    return made
  }
}
