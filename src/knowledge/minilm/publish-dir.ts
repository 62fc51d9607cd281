// Publishing a generated model folder atomically, guarded by a content stamp: a folder
// that already says it holds this build's output is never built again.

import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { replaceDirAtomic } from '../../core/atomic'

export const STAMP_FILE = 'stamp.json'

/** Stable JSON: sorted keys, two-space indent, trailing newline. */
export function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown => Array.isArray(v)
    ? v.map(sort)
    : v && typeof v === 'object'
      ? Object.fromEntries(Object.keys(v).sort().map(k => [k, sort((v as Record<string, unknown>)[k])]))
      : v
  return `${JSON.stringify(sort(value), null, 2)}\n`
}

/** The stamp of a folder, if it has a readable one. */
export async function readStamp(dir: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(join(dir, STAMP_FILE), 'utf8'))
  }
  catch {
    return undefined
  }
}

/** Whether `dir` carries exactly `stamp`. */
export async function stampMatches(dir: string, stamp: unknown): Promise<boolean> {
  const found = await readStamp(dir)
  return found !== undefined && stableJson(found) === stableJson(stamp)
}

/**
 * Makes `target` hold what `build(tmpDir)` writes, unless it already carries `stamp`.
 * The folder is built next to the target and renamed into place, with `stamp.json`
 * written last, so a reader sees either the old folder, or the complete new one (or, for
 * the instant an outdated folder is swapped out, none). A concurrent builder that
 * finishes first wins; the loser discards its copy.
 */
export async function publishDir(target: string, stamp: unknown, build: (dir: string) => Promise<void>, { force = false }: { force?: boolean } = {}): Promise<{ built: boolean, dir: string }> {
  if (!force && await stampMatches(target, stamp))
    return { built: false, dir: target }
  const built = await replaceDirAtomic(target, async (tmp) => {
    await build(tmp)
    await writeFile(join(tmp, STAMP_FILE), stableJson(stamp))
  }, { keep: async () => !force && await stampMatches(target, stamp) })
  return { built, dir: target }
}
