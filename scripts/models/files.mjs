// Publishing a model folder atomically, guarded by a content stamp.

import { randomBytes } from 'node:crypto'
import { chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

export const STAMP_FILE = 'stamp.json'

/** Stable JSON: sorted keys, two-space indent, trailing newline. */
export function stableJson(value) {
  const sort = v => Array.isArray(v)
    ? v.map(sort)
    : v && typeof v === 'object'
      ? Object.fromEntries(Object.keys(v).sort().map(k => [k, sort(v[k])]))
      : v
  return `${JSON.stringify(sort(value), null, 2)}\n`
}

export async function readStamp(dir) {
  try {
    return JSON.parse(await readFile(join(dir, STAMP_FILE), 'utf8'))
  }
  catch {
    return undefined
  }
}

export async function stampMatches(dir, stamp) {
  const found = await readStamp(dir)
  return found !== undefined && stableJson(found) === stableJson(stamp)
}

/**
 * Makes `target` hold what `build(tmpDir)` writes, unless it already carries `stamp`.
 * The folder is built next to the target and renamed into place, with `stamp.json`
 * written last, so a reader sees either the old folder, or the complete new one (or, for
 * the instant an outdated folder is swapped out, none). A concurrent builder that
 * finishes first wins; the loser discards its copy.
 *
 * @returns {Promise<{ built: boolean, dir: string }>}
 */
export async function publishDir(target, stamp, build, { force = false } = {}) {
  if (!force && await stampMatches(target, stamp))
    return { built: false, dir: target }
  await mkdir(dirname(target), { recursive: true })
  const tmp = await mkdtemp(join(dirname(target), `.${basename(target)}.tmp-`))
  try {
    await chmod(tmp, 0o755) // mkdtemp makes it private
    await build(tmp)
    await writeFile(join(tmp, STAMP_FILE), stableJson(stamp))
    try {
      await rename(tmp, target)
    }
    catch (error) {
      if (!['ENOTEMPTY', 'EEXIST', 'EPERM', 'EACCES'].includes(error.code))
        throw error
      if (!force && await stampMatches(target, stamp)) {
        await rm(tmp, { recursive: true, force: true })
        return { built: false, dir: target }
      }
      const old = join(dirname(target), `.${basename(target)}.old-${process.pid}-${randomBytes(4).toString('hex')}`)
      await rename(target, old)
      await rename(tmp, target)
      await rm(old, { recursive: true, force: true })
    }
  }
  catch (error) {
    await rm(tmp, { recursive: true, force: true })
    throw error
  }
  return { built: true, dir: target }
}
