// Bounds on activation triggers. The compiler reports a trigger outside them
// as a diagnostic at its line; the activation engine skips it (and any trigger
// its matchers cannot compile), so one hostile skill never slows down or
// breaks the activation of the others.

import ignore from 'ignore'

/** Most entries read from one trigger list (`paths`, `topics` or `projects`) of a skill. */
export const MAX_TRIGGERS = 100
/** Longest topic or project code, in characters: topics are keywords and short phrases. */
export const MAX_PHRASE_LENGTH = 100
/** Longest path glob, in characters. */
export const MAX_GLOB_LENGTH = 256
/** Most `*` and `?` wildcards in one glob: each one multiplies the work of a failing match. */
export const MAX_GLOB_WILDCARDS = 8

const WORD = /[\p{L}\p{N}\p{M}_]/u

/** Why a topic or project code is too long to match within bounds, or `undefined`. */
export function phraseLengthProblem(phrase: string): string | undefined {
  return phrase.length > MAX_PHRASE_LENGTH ? `has ${phrase.length} characters; at most ${MAX_PHRASE_LENGTH} are allowed` : undefined
}

/**
 * Why the compiler refuses a topic, or `undefined`: too long, or without a
 * letter or digit (the engine would test such a topic at every character of
 * every message; it still matches one written by hand).
 */
export function topicProblem(topic: string): string | undefined {
  if (topic.length > MAX_PHRASE_LENGTH)
    return `has ${topic.length} characters; topics are keywords or short phrases of at most ${MAX_PHRASE_LENGTH}`
  if (!WORD.test(topic))
    return 'has no letter or digit, so every message would be searched for it at every character; use a word or phrase, e.g. "c++"'
  return undefined
}

/** Why a glob cannot be matched within bounds, or `undefined` (its syntax is checked by `globProblem`). */
export function globLimitProblem(glob: string): string | undefined {
  if (glob.length > MAX_GLOB_LENGTH)
    return `has ${glob.length} characters; at most ${MAX_GLOB_LENGTH} are allowed`
  let wildcards = 0
  for (const c of glob) {
    if (c === '*' || c === '?')
      wildcards++
  }
  // `**` stands for any folders: count it once.
  wildcards -= (glob.match(/\*\*/g) ?? []).length
  if (wildcards > MAX_GLOB_WILDCARDS)
    return `has ${wildcards} wildcards; at most ${MAX_GLOB_WILDCARDS} are allowed, since each one multiplies the work of matching a path`
  try {
    ignore().add(glob).test('probe')
  }
  catch {
    return 'cannot be compiled as a .gitignore pattern'
  }
  return undefined
}

/** The triggers of a list that the activation engine uses: the first {@link MAX_TRIGGERS} within bounds. */
export function usableTriggers(list: readonly string[] | undefined, problem: (trigger: string) => string | undefined): string[] {
  const usable: string[] = []
  for (const trigger of list ?? []) {
    if (usable.length === MAX_TRIGGERS)
      break
    if (typeof trigger === 'string' && problem(trigger.trim()) === undefined)
      usable.push(trigger)
  }
  return usable
}
