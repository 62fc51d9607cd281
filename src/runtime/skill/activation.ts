// Conditional skill activation (protocol 530): skills with triggers start
// dormant and join the prompt listing once a message names one of their
// topics, a touched path matches one of their globs, or the active context
// names one of their projects; once active, a skill stays active.
//
// Every trigger is compiled once, at creation (and after a hot update of the
// registry in the Vite dev server), into three indexes (topics and
// project codes by word, path globs by literal segment, extension or segment
// edge; see `match-text.ts` and `match-paths.ts`), so an observation costs a
// scan of its text or path, not a test per skill. Active skills leave the
// indexes.
//
// Decisions the protocol leaves open:
// - Topics: case-insensitive, whole words (word characters: letters, numbers,
//   marks and `_` of any script); a boundary is required only on a side where
//   the topic has a word character (`c++`, `.net`); any run of whitespace in the
//   text matches the whitespace between a phrase's words.
// - Project codes: case-sensitive (they are identifiers), `#` is one ASCII
//   digit, and a code must be a whole token by the same word rule, so `-` and
//   other punctuation end it: `E##` is found in `E07-notes` and `(E07)`, not in
//   `E7`, `E123`, `E07_notes` or `e07`.
// - Paths: see `relativePath` for how paths are made relative; `matched` is the
//   path relative to the working folder, as the glob saw it.
// - When several triggers of a skill match in one observation: topics and
//   projects report the match that starts first in the text (then the trigger
//   listed first); paths report the first path, in the given order, with the
//   glob `ignore` says decided it (the last matching one, as git reports).
// - Paths without a working folder (no `cwd` option, none in the call) must be
//   relative; an absolute one then never matches.
// - The listing has no header line, so the caller can put its own above it:
//   just one `- name: description` line per active skill, joined by `\n` (no
//   trailing newline; '' when nothing is active). `budgetChars` counts that
//   whole string. Over budget, descriptions go one at a time from the end of
//   the listing: the most recently activated skill first, the unconditional
//   skills last (the last of them first); a line without its description is
//   `- name`. Names always stay, even when the block is still over budget.
// - Skill names should be unique; `activate` and `isActive` use the first skill
//   of a name.

import type { Activated, Activation, ActivationSkill, ActivationStats, ListingOptions, MatchedTrigger } from './types'
import type { PhraseHit } from './match-text'
import { GlobIndex, parseCwd, relativePath } from './match-paths'
import { PhraseIndex, PROJECT_OPTIONS, TOPIC_OPTIONS } from './match-text'
import { registryGeneration } from './registry'
import { globLimitProblem, phraseLengthProblem, usableTriggers } from './trigger-limits'
import { estimateTokens, listingLine } from '../tokens'

/** Options of {@link createActivation}. */
export interface ActivationOptions {
  /** Where activations are logged (default `console.log`). */
  log?: (message: string) => void
  /** The working folder that absolute paths are made relative to. */
  cwd?: string
}

/** The log line of an activation. */
function activationMessage(name: string, trigger: MatchedTrigger): string {
  return `[skills] Activated conditional skill '${name}' (matched: ${trigger.kind}: ${trigger.value})`
}

/**
 * Starts a session's activation: skills without triggers (or `always_active`)
 * are active from the start, the others dormant until one of their triggers
 * matches what the session observes, or the agent loads them by name.
 * Given the live registry of the Vite dev server, it follows its hot updates:
 * new and edited skills get their new triggers, and activated skills that
 * still exist stay active.
 */
export function createActivation<S extends ActivationSkill>(skills: readonly S[], options: ActivationOptions = {}): Activation<S> {
  const log = options.log ?? ((message: string) => console.log(message))
  const defaultCwd = parseCwd(options.cwd)
  /** The skills the indexes were built from: `skills` may be patched in place since. */
  let indexed: S[] = []
  let generation = -1
  let count = 0
  let on = new Uint8Array(0)
  /** Unconditional skills, in the given order. */
  let unconditional: number[] = []
  /** Activated skills, in activation order. */
  let activated: number[] = []
  let byName = new Map<string, number>()
  let topics = new PhraseIndex(TOPIC_OPTIONS)
  let projects = new PhraseIndex(PROJECT_OPTIONS)
  let paths = new GlobIndex()

  let activeCache: S[] | undefined
  let dormantCache: S[] | undefined
  let allTokens: number | undefined

  /** Builds the indexes when the skills changed (only a hot update changes them); activated names stay active. */
  function sync(): void {
    if (generation === registryGeneration(skills))
      return
    const wasActivated = activated.map(i => indexed[i]!.name)
    generation = registryGeneration(skills)
    indexed = [...skills]
    count = indexed.length
    on = new Uint8Array(count)
    unconditional = []
    activated = []
    byName = new Map()
    topics = new PhraseIndex(TOPIC_OPTIONS)
    projects = new PhraseIndex(PROJECT_OPTIONS)
    paths = new GlobIndex()
    activeCache = undefined
    dormantCache = undefined
    allTokens = undefined
    indexed.forEach((skill, i) => {
      if (!byName.has(skill.name))
        byName.set(skill.name, i)
      const triggers = skill.triggers
      if (!triggers || triggers.alwaysActive) {
        on[i] = 1
        unconditional.push(i)
        return
      }
      // Compiled skills were checked against the same bounds at build time; triggers built by hand are filtered here.
      topics.add(i, usableTriggers(triggers.topics, phraseLengthProblem))
      projects.add(i, usableTriggers(triggers.projects, phraseLengthProblem))
      paths.add(i, usableTriggers(triggers.paths, globLimitProblem))
    })
    paths.build(count)
    for (const name of wasActivated) {
      const i = byName.get(name)
      if (i !== undefined && !on[i])
        enable(i)
    }
  }

  function enable(i: number): void {
    on[i] = 1
    activated.push(i)
    topics.remove(i)
    projects.remove(i)
    paths.remove(i)
  }

  /** Activates the given dormant skills, in skill order: indexes, listing order, log. */
  function commit(found: Map<number, MatchedTrigger>): Activated<S>[] {
    const result: Activated<S>[] = []
    for (const i of [...found.keys()].sort((a, b) => a - b)) {
      enable(i)
      result.push({ skill: indexed[i]!, trigger: found.get(i)! })
    }
    if (result.length > 0) {
      activeCache = undefined
      dormantCache = undefined
      for (const { skill, trigger } of result)
        log(activationMessage(skill.name, trigger))
    }
    return result
  }

  function fromPhrases(kind: 'topics' | 'projects', hits: Map<number, PhraseHit>): Map<number, MatchedTrigger> {
    const found = new Map<number, MatchedTrigger>()
    for (const [i, hit] of hits) {
      if (!on[i])
        found.set(i, { kind, value: hit.value, matched: hit.matched })
    }
    return found
  }

  function lines(): { name: string, line: string }[] {
    return [...unconditional, ...activated].map((i) => {
      const skill = indexed[i]!
      return { name: skill.name, line: listingLine(skill) }
    })
  }

  function listing(listingOptions: ListingOptions = {}): string {
    const all = lines()
    const budget = listingOptions.budgetChars
    let length = all.reduce((n, { line }) => n + line.length, 0) + Math.max(0, all.length - 1)
    if (budget !== undefined) {
      // Drop descriptions from the most recently activated skill backwards,
      // unconditional skills last, until the block fits; names always stay.
      for (let k = all.length - 1; k >= 0 && length > budget; k--) {
        const entry = all[k]!
        const short = `- ${entry.name}`
        length -= entry.line.length - short.length
        entry.line = short
      }
    }
    return all.map(({ line }) => line).join('\n')
  }

  sync()
  return {
    get active() {
      sync()
      return activeCache ??= [...unconditional, ...activated].map(i => indexed[i]!)
    },
    get dormant() {
      sync()
      return dormantCache ??= indexed.filter((_, i) => !on[i])
    },
    isActive(name) {
      sync()
      const i = byName.get(name)
      return i !== undefined && on[i] === 1
    },
    observeMessage(text) {
      sync()
      return commit(fromPhrases('topics', topics.scan(text)))
    },
    observeContext(text) {
      sync()
      return commit(fromPhrases('projects', projects.scan(text)))
    },
    observePaths(list, observeOptions) {
      sync()
      const found = new Map<number, MatchedTrigger>()
      if (paths.size === 0)
        return []
      const cwd = observeOptions?.cwd !== undefined ? parseCwd(observeOptions.cwd) : defaultCwd
      for (const path of list) {
        const rel = relativePath(path, cwd)
        if (rel === undefined)
          continue
        paths.match(rel, i => on[i] === 1 || found.has(i), (i, hit) => {
          found.set(i, { kind: 'paths', value: hit.value, matched: rel })
        })
      }
      return commit(found)
    },
    activate(name, trigger) {
      sync()
      const i = byName.get(name)
      if (i === undefined || on[i])
        return undefined
      return commit(new Map([[i, trigger ?? { kind: 'load', value: name, matched: name }]]))[0]
    },
    listing(listingOptions) {
      sync()
      return listing(listingOptions)
    },
    stats(): ActivationStats {
      sync()
      allTokens ??= estimateTokens(indexed.map(listingLine).join('\n'))
      const listingTokens = estimateTokens(listing())
      const active = unconditional.length + activated.length
      return {
        skills: count,
        active,
        dormant: count - active,
        allTokens,
        listingTokens,
        savedTokens: allTokens - listingTokens,
      }
    },
  }
}
