import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { buildSync } from 'esbuild'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MAX_SEGMENTS, VectorCache, vectorKey } from '../../src/knowledge/vector-cache'

const DIMENSIONS = 4
/** Header, then per record: key (16), checksum (4), vector. */
const RECORD = 16 + 4 + DIMENSIONS * 4
const vector = (i: number) => new Float32Array([i, i + 0.5, -i, 1])

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'skill-kit-vector-cache-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function filled(count: number): VectorCache {
  const cache = new VectorCache(dir, 'model@rev', DIMENSIONS)
  for (let i = 0; i < count; i++)
    cache.set(vectorKey(`text ${i}`), vector(i))
  cache.save()
  return cache
}

describe('VectorCache integrity', () => {
  it('treats a record with a NaN as a miss and keeps the others', () => {
    const { file } = filled(3)
    const bytes = readFileSync(file)
    // A NaN written with a matching checksum would pass the checksum: the value check catches it.
    bytes.writeFloatLE(Number.NaN, 16 + RECORD + 20)
    writeFileSync(file, bytes)
    const again = new VectorCache(dir, 'model@rev', DIMENSIONS)
    expect(again.size).toBe(2)
    expect(again.get(vectorKey('text 1'))).toBeUndefined()
    expect([...again.get(vectorKey('text 2'))!]).toEqual([...vector(2)])
  })

  it('treats a record whose bytes changed as a miss (checksum), and a truncated file as empty', () => {
    const { file } = filled(3)
    const bytes = readFileSync(file)
    bytes.writeUInt8(bytes.readUInt8(16 + 2 * RECORD + 20) ^ 0x01, 16 + 2 * RECORD + 20)
    writeFileSync(file, bytes)
    const again = new VectorCache(dir, 'model@rev', DIMENSIONS)
    expect([again.size, again.get(vectorKey('text 2'))]).toEqual([2, undefined])
    writeFileSync(file, bytes.subarray(0, bytes.length - 3))
    expect(new VectorCache(dir, 'model@rev', DIMENSIONS).size).toBe(0)
  })

  it('removes temporary files of writers that are gone, and keeps those of running ones', () => {
    const { file } = filled(1)
    const dead = spawnSync(process.execPath, ['-e', '']).pid!
    const deadTemporary = `${file}.${dead}.lq0abc.tmp`
    const liveTemporary = `${file}.${process.ppid}.lq0abd.tmp`
    writeFileSync(deadTemporary, 'half')
    writeFileSync(liveTemporary, 'being written')
    expect(new VectorCache(dir, 'model@rev', DIMENSIONS).size).toBe(1)
    expect([existsSync(deadTemporary), existsSync(liveTemporary)]).toEqual([false, true])
  })

  it('saves in steps during a long build, so a killed build keeps most of its work', async () => {
    // A child adds vectors with a checkpoint after each, says when 5,000 are in, and is killed.
    const module = join(dir, 'vector-cache.mjs')
    buildSync({ entryPoints: [fileURLToPath(new URL('../../src/knowledge/vector-cache.ts', import.meta.url))], bundle: true, platform: 'node', format: 'esm', outfile: module, logLevel: 'error' })
    const child = spawn(process.execPath, ['--input-type=module', '-e', `
      const { VectorCache, vectorKey } = await import(${JSON.stringify(pathToFileURL(module).href)})
      const cache = new VectorCache(${JSON.stringify(dir)}, 'model@rev', ${DIMENSIONS})
      for (let i = 0; i < 5000; i++) {
        cache.set(vectorKey('text ' + i), new Float32Array([i, i + 0.5, -i, 1]))
        cache.checkpoint()
      }
      process.stdout.write('added\\n')
      setInterval(() => {}, 1000)
    `], { stdio: ['ignore', 'pipe', 'inherit'] })
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => resolve())
      child.once('exit', code => reject(new Error(`The child exited with ${code} before adding its vectors.`)))
    })
    child.kill('SIGKILL')
    await new Promise(resolve => child.once('exit', resolve))
    const kept = new VectorCache(dir, 'model@rev', DIMENSIONS)
    // Checkpoints happen once half as many vectors as are saved are unsaved (1,024, 2,048, 3,072, 4,608).
    expect(kept.size).toBe(4608)
    expect([...kept.get(vectorKey('text 3999'))!]).toEqual([...vector(3999)])
    expect(readdirSync(dir).filter(name => name.endsWith('.tmp'))).toEqual([])
    // The main file and a segment for each later checkpoint, each holding only what was new.
    const bins = readdirSync(dir).filter(name => name.endsWith('.bin'))
    expect(bins.map(name => readFileSync(join(dir, name)).length).sort((a, b) => a - b)).toEqual([1024, 1024, 1024, 1536].map(n => 16 + n * RECORD))
  })

  it('writes each save after the first as a segment of the new vectors, and merges the segments past MAX_SEGMENTS', () => {
    const cache = filled(2)
    const bins = () => readdirSync(dir).filter(name => name.endsWith('.bin'))
    for (let save = 1; save <= MAX_SEGMENTS; save++) {
      cache.set(vectorKey(`more ${save}`), vector(save))
      cache.save()
    }
    expect(bins()).toHaveLength(MAX_SEGMENTS + 1)
    const reopened = new VectorCache(dir, 'model@rev', DIMENSIONS)
    expect(reopened.size).toBe(MAX_SEGMENTS + 2)
    expect([...reopened.get(vectorKey(`more ${MAX_SEGMENTS}`))!]).toEqual([...vector(MAX_SEGMENTS)])
    reopened.set(vectorKey('last'), vector(99))
    reopened.save()
    expect(bins()).toEqual([`${reopened.file.split('/').at(-1)}`])
    expect(readFileSync(reopened.file).length).toBe(16 + (MAX_SEGMENTS + 3) * RECORD)
    expect(new VectorCache(dir, 'model@rev', DIMENSIONS).size).toBe(MAX_SEGMENTS + 3)
  })

  it('reads saved vectors from the files it opened, even after another process replaced them', () => {
    filled(3).close()
    const reader = new VectorCache(dir, 'model@rev', DIMENSIONS)
    // Another process merges a cache of other vectors into the same main file (a rename over it).
    const writer = new VectorCache(join(dir, 'other'), 'model@rev', DIMENSIONS)
    for (let i = 10; i < 20; i++)
      writer.set(vectorKey(`text ${i}`), vector(i))
    writer.save()
    writer.close()
    renameSync(writer.file, reader.file)
    rmSync(join(dir, 'other'), { recursive: true })
    expect([...reader.get(vectorKey('text 2'))!]).toEqual([...vector(2)])
    expect(reader.has(vectorKey('text 12'))).toBe(false)
    reader.close()
    // A file changed in place (no writer of ours does that): its first record removed, the others moved up. A miss, never another key's vector.
    const inPlace = new VectorCache(dir, 'model@rev', DIMENSIONS)
    writeFileSync(inPlace.file, Buffer.concat([readFileSync(inPlace.file).subarray(0, 16), readFileSync(inPlace.file).subarray(16 + RECORD)]))
    expect(inPlace.get(vectorKey('text 10'))).toBeUndefined()
    inPlace.close()
  })

  it('rewrites the main file when it was unreadable, or when a vector changed', () => {
    const { file } = filled(2)
    writeFileSync(file, 'not a cache')
    const damaged = new VectorCache(dir, 'model@rev', DIMENSIONS)
    damaged.set(vectorKey('text 0'), vector(0))
    damaged.save()
    expect(readdirSync(dir).filter(name => name.endsWith('.bin'))).toHaveLength(1)
    const changed = new VectorCache(dir, 'model@rev', DIMENSIONS)
    changed.set(vectorKey('text 0'), vector(5))
    changed.save()
    expect(readdirSync(dir).filter(name => name.endsWith('.bin'))).toHaveLength(1)
    expect([...new VectorCache(dir, 'model@rev', DIMENSIONS).get(vectorKey('text 0'))!]).toEqual([...vector(5)])
  })
})
