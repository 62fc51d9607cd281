import { createHash, randomBytes } from 'node:crypto'
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { removeDeadTemporaries, writeFileAtomic, writeFileAtomicStreamed } from '../core/atomic'
import { makeGeneratedFolder } from '../core/folders'
import { hash } from '../core/hash'

const MAGIC = 0x53_4B_56_43 // "SKVC"
/** 2: each record carries a checksum. */
const VERSION = 2
const HEADER_BYTES = 16
/** Keys are stored as their first 16 bytes. */
const KEY_BYTES = 16
/** Each record's checksum: the first 4 bytes of the SHA-256 of its key and vector. */
const CHECK_BYTES = 4
/** A checkpoint writes the cache once this many vectors (and half of what is saved, or {@link SEGMENT_VECTORS}) are unsaved. */
const CHECKPOINT_VECTORS = 1024
/** Most vectors a checkpoint waits for: a build's last save, after its last answer, then writes little. */
const SEGMENT_VECTORS = 4096
/** Segments beside the main file past which a save merges them all into it. */
export const MAX_SEGMENTS = 64

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

/** Bytes of records read at a time when a cache file is opened. */
const READ_BYTES = 4 * 1024 * 1024
/** Bytes read at a time for a saved vector: a rebuild asks for them in about the order they were saved. */
const READ_AHEAD_BYTES = 64 * 1024
/** A saved vector's place: its file's index in `files` times this, plus its record's byte offset. */
const FILE_STRIDE = 2 ** 32

/** Reads `length` bytes at `position` of `fd` into `into`; `false` when the file is shorter. */
function readAt(fd: number, into: Uint8Array, length: number, position: number): boolean {
  for (let at = 0; at < length;) {
    const read = readSync(fd, into, at, length - at, position + at)
    if (read === 0)
      return false
    at += read
  }
  return true
}

/**
 * Content-addressed embedding vectors of one model fingerprint, persisted
 * under the cache folder. A vector is keyed by what was embedded (see
 * {@link vectorKey}). What is read is verified: a foreign or truncated file is
 * ignored, and a record whose checksum or values are wrong is a miss, which
 * costs only time.
 *
 * Saved vectors stay on disk: the cache holds where each record is, and reads
 * a vector when it is asked for, so a build of 100k windows does not hold
 * every float vector at once (only those set since the last save). The files
 * it indexed stay open until {@link close}, so another process replacing them
 * never moves a record under it.
 *
 * The main file holds what the first save had; each later save writes only
 * the vectors added since as a segment beside it (`vectors-<id>.<random>.bin`),
 * so the checkpoints of a 100k-window build write each vector once instead of
 * rewriting the file, and past {@link MAX_SEGMENTS} segments a save merges
 * them into the main file, streamed. Every file is written atomically
 * (temporary file, then rename); temporary files that killed writers left are
 * removed when the cache is opened.
 */
export class VectorCache {
  /** Saved vectors: where their records are (see {@link FILE_STRIDE}). */
  private stored = new Map<string, number>()
  /** Vectors set since the last save: new ones, and saved ones that changed. */
  private readonly pending = new Map<string, Float32Array>()
  /** The new ones among them, in order. */
  private unsaved: string[] = []
  /** The files records are read from, and their descriptors (open from indexing until {@link close}). */
  private files: string[] = []
  private fds: (number | undefined)[] = []
  /** The bytes last read for a saved vector, and those after it. */
  private block: { file: number, start: number, end: number, bytes: Uint8Array } | undefined
  /** Segment files read or written. */
  private segments: string[] = []
  /** Whether the next save rewrites the main file: it is missing or unreadable, or a vector changed. */
  private rewrite = true
  /** The main file. */
  readonly file: string

  /** Length of every vector; 0 (given for an embedder that learns it from its first answer) until the file or the first vector tells. */
  dimensions: number

  constructor(folder: string, fingerprint: string, dimensions: number) {
    this.dimensions = dimensions
    // A cache, wherever `cache` puts it: kept out of git when this makes its folder.
    makeGeneratedFolder(folder, { cache: true })
    const id = `vectors-${hash(fingerprint).slice(0, 16)}`
    this.file = join(folder, `${id}.bin`)
    removeDeadTemporaries(folder)
    if (!existsSync(this.file))
      return
    this.rewrite = !this.index(this.file)
    for (const name of readdirSync(folder).sort()) {
      if (name.startsWith(`${id}.`) && /^\.[0-9a-f]{16}\.bin$/.test(name.slice(id.length))) {
        this.segments.push(join(folder, name))
        this.index(join(folder, name))
      }
    }
  }

  get size(): number {
    return this.stored.size + this.unsaved.length
  }

  has(key: string): boolean {
    return this.pending.has(key) || this.stored.has(key)
  }

  get(key: string): Float32Array | undefined {
    const pending = this.pending.get(key)
    if (pending)
      return pending
    const record = this.record(key)
    if (!record)
      return undefined
    const vector = new Float32Array(this.dimensions)
    new Uint8Array(vector.buffer).set(record.subarray(KEY_BYTES + CHECK_BYTES))
    return vector
  }

  set(key: string, vector: Float32Array): void {
    if (this.dimensions === 0)
      this.dimensions = vector.length
    if (vector.length !== this.dimensions)
      throw new Error(`A ${vector.length}-dimensional vector cannot go into a ${this.dimensions}-dimensional cache.`)
    const old = this.get(key)
    if (old && Buffer.from(old.buffer, old.byteOffset, old.byteLength).equals(Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength)))
      return
    if (!old)
      this.unsaved.push(key)
    else if (this.stored.has(key))
      this.rewrite = true
    this.pending.set(key, vector)
  }

  /**
   * Saves during a long build, so that a killed build keeps most of its work:
   * when enough vectors are unsaved, and at least half as many as are saved
   * (or 4,096).
   */
  checkpoint(): void {
    const n = this.unsaved.length
    if (n >= CHECKPOINT_VECTORS && (n * 2 >= this.size - n || n >= SEGMENT_VECTORS))
      this.save()
  }

  /** Writes the vectors set since the last save, if any: the main file, a segment, or all merged. */
  save(): void {
    if (this.unsaved.length === 0 && !this.rewrite)
      return
    if (this.rewrite || this.segments.length >= MAX_SEGMENTS)
      this.merge()
    else this.writeSegment()
    this.pending.clear()
    this.unsaved = []
    this.rewrite = false
  }

  /** Closes the files it reads from; a later read opens them again. */
  close(): void {
    this.block = undefined
    for (const fd of this.fds.splice(0)) {
      if (fd !== undefined)
        closeSync(fd)
    }
  }

  private recordBytes(): number {
    return KEY_BYTES + CHECK_BYTES + this.dimensions * 4
  }

  private header(count: number): Uint8Array {
    const bytes = new Uint8Array(HEADER_BYTES)
    const view = new DataView(bytes.buffer)
    view.setUint32(0, MAGIC, true)
    view.setUint32(4, VERSION, true)
    view.setUint32(8, this.dimensions, true)
    view.setUint32(12, count, true)
    return bytes
  }

  /** A pending vector's record: key, checksum, vector. */
  private pendingRecord(key: string, vector: Float32Array): Uint8Array {
    const record = new Uint8Array(this.recordBytes())
    const keyBytes = Buffer.from(key, 'hex')
    const vectorBytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength)
    record.set(keyBytes)
    record.set(checksum(keyBytes, vectorBytes), KEY_BYTES)
    record.set(vectorBytes, KEY_BYTES + CHECK_BYTES)
    return record
  }

  /**
   * A saved vector's record as its file has it (valid until the next read),
   * checked to be that key's; `undefined` when it is not saved.
   */
  private record(key: string): Uint8Array | undefined {
    const place = this.stored.get(key)
    if (place === undefined)
      return undefined
    const file = Math.floor(place / FILE_STRIDE)
    const at = place % FILE_STRIDE
    const size = this.recordBytes()
    let block = this.block
    if (!block || block.file !== file || at < block.start || at + size > block.end) {
      const bytes = block && block.bytes.length >= size ? block.bytes : new Uint8Array(Math.max(READ_AHEAD_BYTES, size))
      this.fds[file] ??= openSync(this.files[file]!, 'r')
      const read = readSync(this.fds[file]!, bytes, 0, bytes.length, at)
      block = this.block = { file, start: at, end: at + read, bytes }
      if (read < size)
        return undefined
    }
    const record = block.bytes.subarray(at - block.start, at - block.start + size)
    return Buffer.from(record.buffer, record.byteOffset, KEY_BYTES).toString('hex') === key ? record : undefined
  }

  /** The main file rewritten with every vector, streamed from the files it replaces; the segments removed. */
  private merge(): void {
    const keys = [...new Set([...this.stored.keys(), ...this.unsaved])]
    const places = new Map<string, number>()
    this.writeRecords(this.file, keys, (key, at) => places.set(key, at))
    this.close()
    // Only after the main file holds them: a killed merge leaves duplicates, never a loss.
    for (const segment of this.segments.splice(0))
      rmSync(segment, { force: true })
    this.files = [this.file]
    this.stored = places
  }

  private writeSegment(): void {
    const segment = this.file.replace(/\.bin$/, `.${randomBytes(8).toString('hex')}.bin`)
    const file = this.files.length
    this.writeRecords(segment, this.unsaved, (key, at) => this.stored.set(key, file * FILE_STRIDE + at))
    this.files.push(segment)
    this.segments.push(segment)
  }

  /** Writes the records of `keys` (those that can be read) into `path`, telling where each went. */
  private writeRecords(path: string, keys: readonly string[], placed: (key: string, at: number) => void): void {
    const size = this.recordBytes()
    let count = 0
    writeFileAtomicStreamed(path, (write) => {
      write(this.header(0))
      for (const key of keys) {
        const vector = this.pending.get(key)
        const record = vector ? this.pendingRecord(key, vector) : this.record(key)
        if (!record)
          continue
        write(record)
        placed(key, HEADER_BYTES + count++ * size)
      }
      return this.header(count)
    })
  }

  /** Indexes a file's verified records; `false` when the file as a whole is foreign or truncated. */
  private index(path: string): boolean {
    const fd = openSync(path, 'r')
    const head = new Uint8Array(HEADER_BYTES)
    const size = fstatSync(fd).size
    const view = new DataView(head.buffer)
    if (!readAt(fd, head, HEADER_BYTES, 0) || view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== VERSION) {
      closeSync(fd)
      return false
    }
    if (this.dimensions === 0)
      this.dimensions = view.getUint32(8, true)
    const record = this.recordBytes()
    const count = view.getUint32(12, true)
    if (view.getUint32(8, true) !== this.dimensions || size !== HEADER_BYTES + count * record) {
      closeSync(fd)
      return false
    }
    const file = this.files.push(path) - 1
    this.fds[file] = fd
    // Read in slices, each record checked: its checksum, and that its values are finite.
    const perRead = Math.max(1, Math.floor(READ_BYTES / record))
    const bytes = new Uint8Array(perRead * record)
    const values = new Float32Array(this.dimensions)
    const valueBytes = new Uint8Array(values.buffer)
    for (let first = 0; first < count; first += perRead) {
      const n = Math.min(perRead, count - first)
      if (!readAt(fd, bytes, n * record, HEADER_BYTES + first * record))
        return true
      for (let r = 0, offset = 0; r < n; r++, offset += record) {
        const keyBytes = bytes.subarray(offset, offset + KEY_BYTES)
        const vectorBytes = bytes.subarray(offset + KEY_BYTES + CHECK_BYTES, offset + record)
        if (!Buffer.from(checksum(keyBytes, vectorBytes)).equals(bytes.subarray(offset + KEY_BYTES, offset + KEY_BYTES + CHECK_BYTES)))
          continue
        valueBytes.set(vectorBytes)
        if (finite(values))
          this.stored.set(Buffer.from(keyBytes).toString('hex'), file * FILE_STRIDE + HEADER_BYTES + (first + r) * record)
      }
    }
    return true
  }
}

/** The cache key of one embedded input: its token IDs, or its text. */
export function vectorKey(input: string | readonly number[]): string {
  const text = typeof input === 'string' ? `t:${input}` : `i:${input.join(',')}`
  return Buffer.from(hash(text), 'base64url').subarray(0, KEY_BYTES).toString('hex')
}

/** The token memo's file format: 3 keeps its entries as a flat list of keys and values. */
const MEMO_VERSION = 3

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
      const data = JSON.parse(readFileSync(this.file, 'utf8')) as { version?: number, fingerprint?: string, entries?: unknown }
      if (data.version === MEMO_VERSION && data.fingerprint === fingerprint && Array.isArray(data.entries)) {
        const entries = data.entries as unknown[]
        for (let i = 0; i + 1 < entries.length; i += 2) {
          const [key, value] = [entries[i], entries[i + 1]]
          if (typeof key === 'string' && typeof value === 'string')
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
    // In the order the build used them, the folder's: as deterministic as sorted, without sorting 100k entries.
    // A flat list of keys and values: an object of 130k keys took 2 to 4 times as long to write.
    const entries: string[] = []
    for (const [key, value] of this.used)
      entries.push(key, value)
    writeFileAtomic(this.file, JSON.stringify({ version: MEMO_VERSION, fingerprint: this.fingerprint, entries }))
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
