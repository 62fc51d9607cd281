// Path-glob matching for conditional activation. Each skill's globs are one
// .gitignore file, matched by the `ignore` package (case-insensitively, its
// default; a file matches when it or a parent directory is ignored, and a
// `!negation` re-includes). `ignore` decides every match; the index in front of
// it only picks the few skills a path can possibly match.
//
// The index: a match of a positive glob needs something literal of the glob in
// the path, as a whole segment or at a segment's edge, because `ignore` anchors
// every glob segment at `/` or at the start, and ends it at `/` or at the end,
// and a wildcard never crosses `/` except in a `**` segment of its own. So a
// glob requires, for each of its segments:
// - `seg`  a literal segment (`supabase`, `db`): a path segment equal to it;
// - `ext`  a segment ending in a literal `.x` (`*.sql`, `*.test.ts`): a path
//          segment whose text after its last dot is `x`;
// - `head` a segment starting with 3+ literal characters (`docker*`): a path
//          segment starting with them;
// - `tail` a segment ending in 3+ literal characters (`*config`).
// These hold for the path or one of its parent directories (prefixes of the
// path), so for the path. Keys are upper-cased on both sides, which equates at
// least the characters `ignore`'s case-insensitive regexes do. A glob is
// indexed under its rarest requirement; its other requirements are checked
// before `ignore` is asked. Negations never make a path match, so only positive
// globs are indexed; a skill with a positive glob without any requirement
// (`*`, `**/*`, an escape) is asked about every path.

import ignore from 'ignore'
import { work } from '../work'

/** Requirement kinds, in order of preference on a tie. */
const SEG = 0
const EXT = 1
const HEAD = 2
const TAIL = 3
type Kind = typeof SEG | typeof EXT | typeof HEAD | typeof TAIL

interface Requirement {
  kind: Kind
  key: string
}

interface Glob {
  owner: number
  requirements: Requirement[]
}

const KINDS: Kind[] = [SEG, EXT, HEAD, TAIL]

/**
 * What a positive glob requires of a path's segments (all of it), `[]` when
 * nothing can be told, `undefined` for a glob that never makes a path match
 * (a negation, a comment, a blank line).
 */
export function globRequirements(glob: string): Requirement[] | undefined {
  if (glob === '' || glob[0] === '#' || glob[0] === '!' || /^\s*$/.test(glob))
    return undefined
  // Escapes, line breaks, a BOM and trailing spaces change what the pattern
  // means to `ignore`: no shortcut.
  if (/[\\\r\n\uFEFF]| $/.test(glob))
    return []
  const requirements: Requirement[] = []
  const add = (kind: Kind, key: string) => {
    if (!requirements.some(r => r.kind === kind && r.key === key))
      requirements.push({ kind, key })
  }
  for (const segment of glob.split('/')) {
    if (segment === '')
      continue
    const first = segment.search(/[*?[]/)
    if (first < 0) {
      add(SEG, segment.toUpperCase())
      continue
    }
    const head = segment.slice(0, first).toUpperCase()
    let last = -1
    for (let i = segment.length - 1; i >= 0; i--) {
      if ('*?[]'.includes(segment[i]!)) {
        last = i
        break
      }
    }
    const tail = segment.slice(last + 1).toUpperCase()
    const dot = tail.lastIndexOf('.')
    if (dot >= 0)
      add(EXT, tail.slice(dot + 1))
    if (head.length >= 3)
      add(HEAD, head.slice(0, 3))
    if (tail.length >= 3)
      add(TAIL, tail.slice(-3))
  }
  return requirements
}

/** A path's segments, upper-cased, for the index. */
class PathKeys {
  readonly segments: string[]
  constructor(rel: string) {
    this.segments = rel.toUpperCase().split('/')
    if (this.segments[this.segments.length - 1] === '')
      this.segments.pop()
  }

  has({ kind, key }: Requirement): boolean {
    for (const s of this.segments) {
      if (keyOf(kind, s) === key)
        return true
    }
    return false
  }
}

function keyOf(kind: Kind, segment: string): string | undefined {
  switch (kind) {
    case SEG: return segment
    case EXT: {
      const dot = segment.lastIndexOf('.')
      return dot < 0 ? undefined : segment.slice(dot + 1)
    }
    case HEAD: return segment.length >= 3 ? segment.slice(0, 3) : undefined
    case TAIL: return segment.length >= 3 ? segment.slice(-3) : undefined
  }
}

/** What matched a skill's globs: the glob as written. */
export interface GlobHit {
  value: string
}

/** Path globs of many owners (skills), each owner's list one .gitignore file. */
export class GlobIndex {
  private readonly maps: Map<string, Glob[]>[] = KINDS.map(() => new Map())
  /** Owners with a positive glob that requires nothing: asked about every path. */
  private always: number[] = []
  private readonly globsOf = new Map<number, { globs: readonly string[], indexed: Glob[], matcher?: ReturnType<typeof ignore> }>()
  private readonly pending: { owner: number, globs: readonly string[], requirements: (Requirement[] | undefined)[] }[] = []
  /** Stamp per owner, to ask `ignore` once per owner and path. */
  private seen: Uint32Array = new Uint32Array(0)
  private stamp = 0

  add(owner: number, globs: readonly string[]): void {
    if (globs.length > 0)
      this.pending.push({ owner, globs, requirements: globs.map(globRequirements) })
  }

  /** Indexes every glob added, each under its rarest requirement. */
  build(owners: number): void {
    this.seen = new Uint32Array(owners)
    // How many globs have each requirement, per kind.
    const counts = KINDS.map(() => new Map<string, number>())
    for (const { requirements } of this.pending) {
      for (const list of requirements) {
        for (const r of list ?? [])
          counts[r.kind]!.set(r.key, (counts[r.kind]!.get(r.key) ?? 0) + 1)
      }
    }
    const count = (r: Requirement) => counts[r.kind]!.get(r.key)!
    for (const { owner, globs, requirements } of this.pending) {
      const indexed: Glob[] = []
      let always = false
      for (const list of requirements) {
        if (list === undefined)
          continue
        if (list.length === 0) {
          always = true
          continue
        }
        let best = list[0]!
        let bestCount = count(best)
        for (const r of list) {
          const c = count(r)
          if (c < bestCount || (c === bestCount && (r.kind < best.kind || (r.kind === best.kind && r.key.length > best.key.length)))) {
            best = r
            bestCount = c
          }
        }
        const glob: Glob = { owner, requirements: [best, ...list.filter(r => r !== best)] }
        const map = this.maps[best.kind]!
        const bucket = map.get(best.key)
        if (bucket)
          bucket.push(glob)
        else map.set(best.key, [glob])
        indexed.push(glob)
      }
      if (always)
        this.always.push(owner)
      if (always || indexed.length > 0)
        this.globsOf.set(owner, { globs, indexed })
    }
    this.pending.length = 0
  }

  /** Drops an owner's globs (its skill is active now). */
  remove(owner: number): void {
    const entry = this.globsOf.get(owner)
    if (!entry)
      return
    for (const glob of entry.indexed) {
      const { kind, key } = glob.requirements[0]!
      const map = this.maps[kind]!
      // Two globs of the owner may share a bucket: the first removal emptied it of both.
      const bucket = map.get(key)?.filter(g => g.owner !== owner)
      if (bucket?.length === 0)
        map.delete(key)
      else if (bucket)
        map.set(key, bucket)
    }
    if (this.always.includes(owner))
      this.always = this.always.filter(o => o !== owner)
    this.globsOf.delete(owner)
  }

  get size(): number {
    return this.globsOf.size
  }

  /**
   * Calls `onMatch` for each owner (not in `skip`) whose globs match `rel`, a
   * normalised path relative to the working folder (a trailing `/` marks a
   * directory).
   */
  match(rel: string, skip: (owner: number) => boolean, onMatch: (owner: number, hit: GlobHit) => void): void {
    if (this.globsOf.size === 0)
      return
    if (++this.stamp === 0xFFFFFFFF) {
      this.seen.fill(0)
      this.stamp = 1
    }
    const keys = new PathKeys(rel)
    const test = (owner: number) => {
      if (this.seen[owner] === this.stamp || skip(owner))
        return
      this.seen[owner] = this.stamp
      const entry = this.globsOf.get(owner)!
      entry.matcher ??= ignore().add(entry.globs)
      let result: ReturnType<ReturnType<typeof ignore>['test']>
      try {
        result = entry.matcher.test(rel)
      }
      catch {
        // A glob `ignore` cannot compile (the bounds in trigger-limits.ts keep them out): this skill matches nothing, the others go on.
        return
      }
      if (result.ignored && result.rule)
        onMatch(owner, { value: result.rule.pattern })
    }
    for (const owner of this.always)
      test(owner)
    const [segs, exts, heads, tails] = this.maps as [Map<string, Glob[]>, Map<string, Glob[]>, Map<string, Glob[]>, Map<string, Glob[]>]
    const visit = (bucket: Glob[] | undefined) => {
      if (bucket === undefined)
        return
      for (const glob of bucket) {
        work.steps += glob.requirements.length
        if (this.seen[glob.owner] === this.stamp)
          continue
        let ok = true
        for (let i = 1; i < glob.requirements.length && ok; i++)
          ok = keys.has(glob.requirements[i]!)
        if (ok)
          test(glob.owner)
      }
    }
    for (const s of keys.segments) {
      if (segs.size > 0)
        visit(segs.get(s))
      if (exts.size > 0) {
        const key = keyOf(EXT, s)
        if (key !== undefined)
          visit(exts.get(key))
      }
      if (heads.size > 0) {
        const key = keyOf(HEAD, s)
        if (key !== undefined)
          visit(heads.get(key))
      }
      if (tails.size > 0) {
        const key = keyOf(TAIL, s)
        if (key !== undefined)
          visit(tails.get(key))
      }
    }
  }
}

interface SplitPath {
  /** `/`, `C:/` (drive letter upper-cased), or '' for a relative path. */
  root: string
  segments: string[]
  /** Leading `..` left in a relative path: it points outside. */
  up: boolean
  dir: boolean
}

function splitPath(path: string): SplitPath {
  const p = path.replace(/\\/g, '/')
  let root = ''
  let rest = p
  if (/^[A-Z]:(?:\/|$)/i.test(p)) {
    root = `${p[0]!.toUpperCase()}:/`
    rest = p.slice(2)
  }
  else if (p[0] === '/') {
    root = '/'
  }
  const segments: string[] = []
  let up = false
  for (const s of rest.split('/')) {
    if (s === '' || s === '.')
      continue
    if (s === '..') {
      if (segments.length > 0)
        segments.pop()
      else if (root === '')
        up = true
      continue
    }
    segments.push(s)
  }
  return { root, segments, up, dir: p.endsWith('/') }
}

/** A parsed working folder, for {@link relativePath}. */
export type Cwd = SplitPath | undefined

export function parseCwd(cwd: string | undefined): Cwd {
  return cwd === undefined || cwd === '' ? undefined : splitPath(cwd)
}

/**
 * `path` relative to `cwd`, with `/` separators and without `.`/`..`
 * segments, a trailing `/` kept; `undefined` when it is outside `cwd`, is
 * `cwd` itself, or is absolute while `cwd` is missing or relative. A relative
 * path is relative to `cwd` already. Backslashes are separators. Drive letters
 * and, under a drive-letter `cwd`, the whole path compare case-insensitively,
 * as Windows does; other paths compare exactly.
 */
export function relativePath(path: string, cwd: Cwd): string | undefined {
  const p = splitPath(path)
  let segments = p.segments
  if (p.root !== '') {
    if (!cwd || cwd.root !== p.root || cwd.up || cwd.segments.length > segments.length)
      return undefined
    const fold = cwd.root !== '/'
    for (let i = 0; i < cwd.segments.length; i++) {
      const a = cwd.segments[i]!
      const b = segments[i]!
      if (a !== b && (!fold || a.toLowerCase() !== b.toLowerCase()))
        return undefined
    }
    segments = segments.slice(cwd.segments.length)
  }
  else if (p.up) {
    return undefined
  }
  if (segments.length === 0)
    return undefined
  const rel = segments.join('/')
  return p.dir ? `${rel}/` : rel
}
