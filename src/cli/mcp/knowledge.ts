// A knowledge project as `skill-kit mcp` serves it: whatever the last
// `skill-kit build` published. The manifest is read again on every request
// (a few hundred bytes), so a new build is answered from as soon as its
// manifest is written, with no restart; the rest is re-read only then.

import type { KnowledgeProject } from '../../knowledge/project'
import type { PublishedIndex } from '../../knowledge/publish'
import type { RoutedSkill } from '../../routing/layout'
import type { KnowledgeSearchResult } from '../../runtime/knowledge/knowledge'
import type { PublishedSearch } from '../knowledge/search'
import { readManifest, readPublishedIndex } from '../../knowledge/publish'
import { routeKnowledgeProject } from '../../routing/project'
import { CliError } from '../io'
import { displayPath } from '../report'
import { retrievePublished } from '../knowledge/retrieve'
import { searchPublished } from '../knowledge/search'

/** A knowledge base served over MCP. */
export class ServedKnowledge {
  private cached: PublishedIndex | undefined
  private routes: { snapshot: string, pages: Promise<RoutedSkill> } | undefined

  constructor(readonly project: KnowledgeProject, private readonly offline: boolean) {}

  /** The base's name (`name` of skill-kit.json, or the folder's name). */
  get name(): string {
    return this.project.config.name
  }

  /** The manifest's snapshot file: it changes with every build that changed anything. */
  version(): string | undefined {
    return readManifest(this.project.config.output)?.snapshot
  }

  /** The published index as the manifest names it now; a `CliError` as `skill-kit search` says it when there is none. */
  published(): PublishedIndex {
    const snapshot = this.version()
    if (this.cached && this.cached.manifest.snapshot === snapshot)
      return this.cached
    const published = snapshot === undefined ? undefined : readPublishedIndex(this.project.config.output)
    if (!published)
      throw new CliError(`No index is published in ${displayPath(this.project.config.output)}. Run "skill-kit build" first.`)
    this.cached = published
    return published
  }

  /** Ranks the documents as `skill-kit search` does; its refusals are `CliError`s. */
  search(request: Omit<PublishedSearch, 'offline'>): Promise<KnowledgeSearchResult[]> {
    return searchPublished(this.project, () => this.published(), { ...request, offline: this.offline })
  }

  /** A document's body as `skill-kit retrieve` prints it. */
  retrieve(id: string): Promise<string> {
    return retrievePublished(this.project, this.published(), id)
  }

  /** A document's published body by its path in the knowledge folder, or `undefined`. */
  document(path: string): string | undefined {
    return this.published().documents.find(d => d.path === path)?.body
  }

  /**
   * The routed index pages of the documents, made again after each build:
   * by the offline router, or from the routing model's cached answers (the
   * server never calls a model, so it needs no key).
   */
  pages(): Promise<RoutedSkill> {
    const snapshot = this.published().manifest.snapshot
    if (this.routes?.snapshot !== snapshot) {
      const pages = routeKnowledgeProject(this.project, { cacheOnly: true }).then((routed) => {
        if ('diagnostics' in routed && !('skill' in routed))
          throw new CliError(`The documents of "${this.name}" have errors, so no index pages can be made: run "skill-kit build" to see them.`)
        return routed as RoutedSkill
      })
      // A failed routing is tried again on the next request, not remembered.
      pages.catch(() => {
        if (this.routes?.pages === pages)
          this.routes = undefined
      })
      this.routes = { snapshot, pages }
    }
    return this.routes.pages
  }
}
