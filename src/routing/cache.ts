import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeFileAtomic } from '../core/atomic'
import { makeGeneratedFolder } from '../core/folders'

/**
 * Validated model answers on disk, one JSON file per request key (a hash of
 * model, endpoint, prompt version and the request's content). Written
 * atomically; an unreadable file counts as a miss.
 */
export class RoutingCache {
  constructor(readonly dir: string) {}

  private file(kind: 'cards' | 'pages', key: string): string {
    return join(this.dir, kind, `${key}.json`)
  }

  get<T>(kind: 'cards' | 'pages', key: string): T | undefined {
    const file = this.file(kind, key)
    if (!existsSync(file))
      return undefined
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as T
    }
    catch {
      return undefined
    }
  }

  set(kind: 'cards' | 'pages', key: string, value: unknown): void {
    // A cache inside the (maybe committed) output folder: kept out of git when this makes it.
    makeGeneratedFolder(this.dir, { cache: true })
    writeFileAtomic(this.file(kind, key), `${JSON.stringify(value, null, 2)}\n`)
  }
}
