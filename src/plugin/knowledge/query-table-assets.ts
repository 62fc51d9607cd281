// How a knowledge module points at its query table (the static query
// encoder's core and shards), bundler by bundler. The files keep their names
// (`query-table.json`, `query-table-<s>.bin`) in a folder named by the core's
// content, so the module carries one URL, the core's, and a query's shards
// are found beside it: a thousand shards cost the bundle nothing.

import type { AssetMode } from '../bundlers/asset-mode'
import type { QueryTableFiles } from '../../knowledge/publish'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { hash } from '../../core/hash'
import { QUERY_TABLE_CORE_NAME, queryTableShardName } from '../../runtime/knowledge/vector/encoder/read'
import { emittedUrl, fixedOutput } from '../bundlers/asset-mode'

const json = (value: unknown) => JSON.stringify(value)

/**
 * An expression of the URL (a `URL` object) of the query table's core, its
 * shards written beside it; or why this build cannot write them. `dir` is the
 * published folder, which the Vite dev server serves and its SSR reads in place.
 * `coreReference`: the core's reference id, where the bundler emits it.
 */
export function queryTableReference(mode: AssetMode, table: QueryTableFiles, dir: string): { core: string, coreReference?: string } | { error: string } {
  const folder = `skill-kit/query-tables/${hash(table.core).slice(0, 16)}/`
  const files: [string, Uint8Array][] = [[QUERY_TABLE_CORE_NAME, table.core], ...table.shards.map((shard, s): [string, Uint8Array] => [queryTableShardName(s), shard])]
  switch (mode.kind) {
    case 'emit': {
      let core = ''
      for (const [name, source] of files) {
        const reference = mode.emit(`${folder}${name}`, name, source)
        if (name === QUERY_TABLE_CORE_NAME)
          core = reference
      }
      return { core: `new URL(${emittedUrl(core)}, import.meta.url)`, coreReference: core }
    }
    case 'url-asset':
    case 'file-loader': {
      const output = fixedOutput(mode)
      if ('error' in output)
        return { error: mode.kind === 'file-loader' && !mode.emit ? `${mode.bundler} writes the query table (queryEncoder "auto" or "static") into the output folder: set outdir, or set queryEncoder to "model".` : output.error.replace('includeModel', 'the query table') }
      for (const [name, source] of files)
        output.emit(`${folder}${name}`, source)
      return { core: output.url(`${folder}${QUERY_TABLE_CORE_NAME}`) }
    }
    case 'dev-server': {
      const served = `@skill-kit/knowledge/${dir.split(/[\\/]/).pop()}/`
      for (const [name] of files)
        mode.serve(`${served}${name}`, join(dir, name))
      // Not a literal, which Vite's dev server would rewrite (see snapshotReference).
      return { core: `new URL(String(${json(`${mode.base}${served}${QUERY_TABLE_CORE_NAME}`)}), import.meta.url)` }
    }
    case 'file':
      return { core: `new URL(${json(pathToFileURL(join(dir, QUERY_TABLE_CORE_NAME)).href)})` }
  }
}
