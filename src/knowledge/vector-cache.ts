import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { removeDeadTemporaries, writeFileAtomic } from '../core/atomic'
import { hash } from '../core/hash'

const MAGIC = 0x53_4B_56_43 // "SKVC"
/** 2: each record carries a checksum. */
const VERSION = 2
const HEADER_BYTES = 16
/** Keys are stored as their first 16 bytes. */
const KEY_BYTES = 16
/** Each record's checksum: the first 4 bytes of the SHA-256 of its key and vector. */
const CHECK_BYTES = 4
/** A checkpoint writes the cache once this many vectors (and a quarter of what it holds) are unsaved. */
const CHECKPOINT_VECTORS = 1024

function checksum(key: Uint8Array, vector: Uint8Array): Uint8Array {
  return createHash('sha256').update(key).update(vector).digest().subarray(0, CHECK_BYTES)
}

/** Whether every value is a finite number (a NaN or infinity would poison every score it takes part in). */
function finite(vector: Float32Array): boolean {
  for (let i = 0; i < vector.length; i++) {
    if (!Number.isFinite(vector[i]!))
      return false
  }
  return true
}

/**
 * Content-addressed embedding vectors of one model fingerprint, persisted in
 * one file under the cache folder. A vector is keyed by what was embedded
 * (see {@link vectorKey}). What is read is verified: a foreign or truncated
 * file is ignored, and a record whose checksum or values are wrong is a miss,
 * which costs only time. Saved atomically; temporary files that killed
 * writers left are removed when the cache is opened.
 */
export class VectorCache {
  private readonly vectors = new Map<string, Float32Array>()
  /** Vectors added since the last save. */
  private unsaved = 0
  readonly file: string

  /** Length of every vector; 0 (given for an embedder that learns it from its first answer) until the file or the first vector tells. */
  dimensions: number

  constructor(folder: string, fingerprint: string, dimensions: number) {
    this.dimensions = dimensions
    this.file = join(folder, `vectors-${hash(fingerprint).slice(0, 16)}.bin`)
    removeDeadTemporaries(folder)
    if (existsSync(this.file))
      this.read(readFileSync(this.file))
  }

  get size(): number {
    return this.vectors.size
  }

  get(key: string): Float32Array | undefined {
    return this.vectors.get(key)
  }

  set(key: string, vector: Float32Array): void {
    if (this.dimensions === 0)
      this.dimensions = vector.length
    if (vector.length !== this.dimensions)
      throw new Error(`A ${vector.length}-dimensional vector cannot go into a ${this.dimensions}-dimensional cache.`)
    this.vectors.set(key, vector)
    this.unsaved++
  }

  /**
   * Saves during a long build, so that a killed build keeps most of its work:
   * when enough vectors are unsaved, and at least a quarter of what the file
   * holds (so the writes of a whole build add up to a few times its size).
   */
  checkpoint(): void {
    if (this.unsaved >= CHECKPOINT_VECTORS && this.unsaved * 4 >= this.vectors.size - this.unsaved)
      this.save()
  }

  /** Writes the cache if anything was added. */
  save(): void {
    if (this.unsaved === 0)
      return
    const record = KEY_BYTES + CHECK_BYTES + this.dimensions * 4
    const bytes = new Uint8Array(HEADER_BYTES + this.vectors.size * record)
    const view = new DataView(bytes.buffer)
    view.setUint32(0, MAGIC, true)
    view.setUint32(4, VERSION, true)
    view.setUint32(8, this.dimensions, true)
    view.setUint32(12, this.vectors.size, true)
    let offset = HEADER_BYTES
    for (const [key, vector] of this.vectors) {
      const keyBytes = Buffer.from(key, 'hex')
      const vectorBytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength)
      bytes.set(keyBytes, offset)
      bytes.set(checksum(keyBytes, vectorBytes), offset + KEY_BYTES)
      bytes.set(vectorBytes, offset + KEY_BYTES + CHECK_BYTES)
      offset += record
    }
    writeFileAtomic(this.file, bytes)
    this.unsaved = 0
  }

  private read(bytes: Uint8Array): void {
    if (bytes.byteLength < HEADER_BYTES)
      return
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const count = view.getUint32(12, true)
    if (this.dimensions === 0 && view.getUint32(0, true) === MAGIC && view.getUint32(4, true) === VERSION)
      this.dimensions = view.getUint32(8, true)
    const record = KEY_BYTES + CHECK_BYTES + this.dimensions * 4
    if (view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== VERSION || view.getUint32(8, true) !== this.dimensions || bytes.byteLength !== HEADER_BYTES + count * record)
      return
    for (let offset = HEADER_BYTES; offset < bytes.byteLength; offset += record) {
      const keyBytes = bytes.subarray(offset, offset + KEY_BYTES)
      const vectorBytes = bytes.subarray(offset + KEY_BYTES + CHECK_BYTES, offset + record)
      if (!Buffer.from(checksum(keyBytes, vectorBytes)).equals(bytes.subarray(offset + KEY_BYTES, offset + KEY_BYTES + CHECK_BYTES)))
        continue
      // Copy: a Buffer from readFileSync may share its memory with others.
      const vector = new Float32Array(this.dimensions)
      new Uint8Array(vector.buffer).set(vectorBytes)
      if (finite(vector))
        this.vectors.set(Buffer.from(keyBytes).toString('hex'), vector)
    }
  }
}

/** The cache key of one embedded input: its token IDs, or its text. */
export function vectorKey(input: string | readonly number[]): string {
  const text = typeof input === 'string' ? `t:${input}` : `i:${input.join(',')}`
  return Buffer.from(hash(text), 'base64url').subarray(0, KEY_BYTES).toString('hex')
}

/**
 * What tokenizing costs to redo, remembered beside the vector cache: per chunk (keyed by
 * a hash of its context and text) the keys of its windows' vectors, and per document body
 * its token count. With it, a rebuild tokenizes only new and edited chunks (tokenizing
 * every chunk was ~80 % of a one-paragraph rebuild of 147 guides). Entries are dropped
 * when a build does not use them; a damaged or foreign file is ignored.
 */
export class TokenMemo {
  private readonly old = new Map<string, string>()
  private readonly used = new Map<string, string>()
  private dirty = false
  readonly file: string

  constructor(folder: string, private readonly fingerprint: string) {
    this.file = join(folder, `windows-${hash(fingerprint).slice(0, 16)}.json`)
    if (!existsSync(this.file))
      return
    try {
      const data = JSON.parse(readFileSync(this.file, 'utf8')) as { version?: number, fingerprint?: string, entries?: Record<string, string> }
      if (data.version === VERSION && data.fingerprint === fingerprint && data.entries && typeof data.entries === 'object') {
        for (const [key, value] of Object.entries(data.entries)) {
          if (typeof value === 'string')
            this.old.set(key, value)
        }
      }
    }
    catch {
      // Unreadable: start over.
    }
  }

  /** The vector keys of a chunk's windows, as remembered. */
  windowKeys(key: string): string[] | undefined {
    const value = this.take(`w:${key}`)
    return value === undefined ? undefined : value === '' ? [] : value.split(',')
  }

  setWindowKeys(key: string, keys: readonly string[]): void {
    this.put(`w:${key}`, keys.join(','))
  }

  tokenCount(key: string): number | undefined {
    const value = this.take(`n:${key}`)
    const n = value === undefined ? Number.NaN : Number(value)
    return Number.isSafeInteger(n) && n >= 0 ? n : undefined
  }

  setTokenCount(key: string, count: number): void {
    this.put(`n:${key}`, String(count))
  }

  /** Writes the entries this build used, if they differ from the file's. */
  save(): void {
    if (!this.dirty && this.used.size === this.old.size)
      return
    const entries = Object.fromEntries([...this.used].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    writeFileAtomic(this.file, JSON.stringify({ version: VERSION, fingerprint: this.fingerprint, entries }))
    this.dirty = false
  }

  private take(key: string): string | undefined {
    const value = this.used.get(key) ?? this.old.get(key)
    if (value !== undefined)
      this.used.set(key, value)
    return value
  }

  private put(key: string, value: string): void {
    if (this.old.get(key) !== value)
      this.dirty = true
    this.used.set(key, value)
  }
}
