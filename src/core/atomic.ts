import { randomBytes } from 'node:crypto'
import { closeSync, mkdirSync, openSync, readdirSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { makeGeneratedFolder } from './folders'

/**
 * Writes a file so that readers see the old content or the new, never half:
 * a temporary file beside it, then a rename (atomic on one file system).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  makeGeneratedFolder(dirname(path))
  const temporary = temporaryPath(path)
  try {
    writeFileSync(temporary, data)
    renameSync(temporary, path)
  }
  catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

/**
 * {@link writeFileAtomic} on libuv's threads, so that the caller's thread goes
 * on with other work while a large file is written.
 */
export async function writeFileAtomicAsync(path: string, data: string | Uint8Array): Promise<void> {
  makeGeneratedFolder(dirname(path))
  const temporary = temporaryPath(path)
  try {
    await writeFile(temporary, data)
    await rename(temporary, path)
  }
  catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
}

/** Bytes a streamed write gathers before each write call. */
const STREAM_BUFFER = 4 * 1024 * 1024

/**
 * {@link writeFileAtomic} of a file `fill` writes piece by piece (in
 * buffered writes), so that a large file is never held whole in memory. What
 * `fill` returns, if anything, is written again over the file's first bytes
 * once the rest is written: a header that counts what was written.
 */
export function writeFileAtomicStreamed(path: string, fill: (write: (bytes: Uint8Array) => void) => Uint8Array | void): void {
  makeGeneratedFolder(dirname(path))
  const temporary = temporaryPath(path)
  const fd = openSync(temporary, 'w')
  const buffer = Buffer.allocUnsafe(STREAM_BUFFER)
  let used = 0
  const flush = () => {
    for (let at = 0; at < used;)
      at += writeSync(fd, buffer, at, used - at)
    used = 0
  }
  try {
    try {
      const head = fill((bytes) => {
        if (used + bytes.length > buffer.length)
          flush()
        if (bytes.length > buffer.length) {
          for (let at = 0; at < bytes.length;)
            at += writeSync(fd, bytes, at, bytes.length - at)
          return
        }
        buffer.set(bytes, used)
        used += bytes.length
      })
      flush()
      if (head)
        writeSync(fd, head, 0, head.length, 0)
    }
    finally {
      closeSync(fd)
    }
    renameSync(temporary, path)
  }
  catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

function temporaryPath(path: string): string {
  return `${path}.${process.pid}.${Date.now().toString(36)}.tmp`
}

/** The temporary files {@link writeFileAtomic} names: `<file>.<pid>.<time>.tmp`. */
const TEMPORARY = /\.(\d+)\.[0-9a-z]+\.tmp$/

/** Whether process `pid` is running on this machine. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  }
  catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes the temporary files (and folders) in `dir` whose writer is no
 * longer running (it was killed before its rename), so they do not pile up:
 * those of {@link writeFileAtomic} by default, or the entries `named`
 * matches, its first group being the writer's process ID. A missing folder
 * is fine.
 */
export function removeDeadTemporaries(dir: string, named: RegExp = TEMPORARY): void {
  let names: string[]
  try {
    names = readdirSync(dir)
  }
  catch {
    return
  }
  for (const name of names) {
    const pid = named.exec(name)?.[1]
    if (pid !== undefined && Number(pid) !== process.pid && !alive(Number(pid)))
      rmSync(join(dir, name), { recursive: true, force: true })
  }
}

/**
 * Makes `target` the folder `fill(temporary)` writes, so that readers see the old
 * folder or the complete new one, never a half-written one: it is filled beside
 * the target, then renamed into place (an existing target is renamed aside first,
 * then removed). When another writer put a folder there meanwhile and `keep()`
 * says it will do, that one stays and this copy is discarded. Resolves whether
 * this copy was put in place.
 */
export async function replaceDirAtomic(target: string, fill: (temporary: string) => Promise<void>, { keep }: { keep?: () => Promise<boolean> } = {}): Promise<boolean> {
  makeGeneratedFolder(dirname(target))
  const temporary = await mkdtemp(join(dirname(target), `.${basename(target)}.tmp-`))
  try {
    await chmod(temporary, 0o755) // mkdtemp makes it private
    await fill(temporary)
    try {
      await rename(temporary, target)
    }
    catch (error) {
      if (!['ENOTEMPTY', 'EEXIST', 'EPERM', 'EACCES'].includes((error as NodeJS.ErrnoException).code ?? ''))
        throw error
      if (await keep?.()) {
        await rm(temporary, { recursive: true, force: true })
        return false
      }
      const old = join(dirname(target), `.${basename(target)}.old-${process.pid}-${randomBytes(4).toString('hex')}`)
      await rename(target, old)
      await rename(temporary, target)
      await rm(old, { recursive: true, force: true })
    }
  }
  catch (error) {
    await rm(temporary, { recursive: true, force: true })
    throw error
  }
  return true
}
