// Ranks a registry's skills for a request, so that an app can offer hundreds
// of skills with no listing in the prompt (the search_skills tool).
//
// Lexical: BM25 over three weighted fields of each skill, with the knowledge
// bases' tokenizer and stemmer (so `migrations` finds `migrate`, and a
// request's function words count for nothing): the name's words count
// NAME_WEIGHT times, its trigger topics TOPIC_WEIGHT times, its description's
// words once. A name written out in the request (`pdf-processing`) wins.
//
// By vector, when a query embedder is given: each skill's name and
// description are embedded once (on the first search, and again after a hot
// update), and a skill's score is its cosine similarity plus VECTOR_LEXICAL
// times its lexical score over the best one's, so that a request in other
// words than the description's still finds it, and exact words still decide
// between close meanings.

import type { RegistrySkill } from '../skill/types'
import type { EmbedQuery } from '../knowledge/query-embedder'
import { QueryModelUnavailableError } from '../knowledge/errors'
import { queryTerms, stem, words } from '../knowledge/lexical/tokens'
import { registryGeneration } from '../skill/registry'

/** How many times a word of a skill's name counts against one of its description. */
export const NAME_WEIGHT = 3
/** How many times a word of a skill's trigger topics counts. */
export const TOPIC_WEIGHT = 2
/** The weight of the normalised lexical score added to the cosine similarity, with an embedder. */
export const VECTOR_LEXICAL = 0.3

const K1 = 1.2
const B = 0.75

/** What ranking needs of a skill: a registry entry, a `?meta` import or a plain object. */
export type RankedSkillInput = Pick<RegistrySkill, 'name' | 'description'> & { triggers?: RegistrySkill['triggers'] }

/** A skill found for a request. */
export interface SkillMatch {
  name: string
  description: string
  /** BM25 (lexical), or cosine + {@link VECTOR_LEXICAL} · normalised BM25 (with an embedder). */
  score: number
}

/** Options of {@link createSkillRanking}. */
export interface SkillRankingOptions {
  /**
   * Embeds a text (the request, and each skill's name and description) for
   * ranking by meaning: the knowledge runtime's `staticQueryEmbedder` or
   * `transformersQueryEmbedder`, or your own. Without it, ranking is lexical;
   * when it throws `QueryModelUnavailableError` (no model files where it
   * runs), ranking is lexical too, and says so once (`console.warn`).
   */
  embedQuery?: EmbedQuery
}

/** Ranks skills for requests; see {@link createSkillRanking}. */
export interface SkillRanking {
  /** The best `limit` skills for a request, best first; skills that share no word with it are left out of a lexical ranking. */
  search: (query: string, limit?: number) => Promise<SkillMatch[]>
}

interface Indexed {
  skills: RankedSkillInput[]
  /** Term → [skill, weighted frequency, …]. */
  postings: Map<string, number[]>
  lengths: Float64Array
  averageLength: number
  /** Lowercased names, for a name written out in a request. */
  names: string[]
}

function index(skills: readonly RankedSkillInput[]): Indexed {
  const postings = new Map<string, number[]>()
  const lengths = new Float64Array(skills.length)
  skills.forEach((skill, i) => {
    const counts = new Map<string, number>()
    const count = (text: string, weight: number) => {
      for (const word of words(text)) {
        const term = stem(word)
        counts.set(term, (counts.get(term) ?? 0) + weight)
        lengths[i]! += weight
      }
    }
    count(skill.name, NAME_WEIGHT)
    count((skill.triggers?.topics ?? []).join('\n'), TOPIC_WEIGHT)
    count(skill.description, 1)
    for (const [term, frequency] of counts) {
      let list = postings.get(term)
      if (!list)
        postings.set(term, list = [])
      list.push(i, frequency)
    }
  })
  const averageLength = skills.length > 0 ? lengths.reduce((a, b) => a + b, 0) / skills.length : 0
  return { skills: [...skills], postings, lengths, averageLength, names: skills.map(s => s.name.toLowerCase()) }
}

/** BM25 of every skill that shares a term with the query (0 for the others). */
function lexicalScores(data: Indexed, query: string): Float64Array {
  const scores = new Float64Array(data.skills.length)
  const n = data.skills.length
  for (const term of queryTerms(query)) {
    const list = data.postings.get(term)
    if (!list)
      continue
    const df = list.length / 2
    const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5))
    for (let p = 0; p < list.length; p += 2) {
      const i = list[p]!
      const tf = list[p + 1]!
      const norm = K1 * (1 - B + B * data.lengths[i]! / (data.averageLength || 1))
      scores[i]! += idf * tf * (K1 + 1) / (tf + norm)
    }
  }
  // A name the request writes out, whole: the agent or the user named the skill.
  const lowered = query.toLowerCase()
  const best = scores.reduce((a, b) => Math.max(a, b), 0)
  data.names.forEach((name, i) => {
    if (name.length > 0 && containsWord(lowered, name))
      scores[i] = best + 1 + scores[i]!
  })
  return scores
}

/** Whether `name` occurs in `text` with no letter, digit or `-` touching it (`pdf-processing` is not in `pdf-processing-2`). */
function containsWord(text: string, name: string): boolean {
  const edge = /[\p{L}\p{N}_-]/u
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = at === 0 ? '' : text[at - 1]!
    const after = text[at + name.length] ?? ''
    if (!edge.test(before) && !edge.test(after))
      return true
  }
  return false
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb)
}

/** The text a skill is embedded from: what a listing would show of it. */
export function skillText(skill: RankedSkillInput): string {
  const topics = skill.triggers?.topics ?? []
  return `${skill.name}: ${skill.description}${topics.length > 0 ? ` (${topics.join(', ')})` : ''}`
}

/**
 * Ranks skills by their name, description and trigger topics: lexically, or
 * by meaning and words together when `embedQuery` is given. Given the live
 * registry of the Vite dev server, it ranks the skills of its latest hot update.
 */
export function createSkillRanking(skills: readonly RankedSkillInput[], options: SkillRankingOptions = {}): SkillRanking {
  const { embedQuery } = options
  let generation = -1
  let data: Indexed = index([])
  let vectors: Promise<ArrayLike<number>[]> | undefined
  /** The model cannot load where this runs: searches are lexical from then on. */
  let unavailable = false

  function sync(): Indexed {
    if (generation !== registryGeneration(skills)) {
      generation = registryGeneration(skills)
      data = index(skills)
      vectors = undefined
    }
    return data
  }

  function skillVectors(current: Indexed): Promise<ArrayLike<number>[]> {
    // One embedding at a time: a query embedder may be a model on the same thread.
    return vectors ??= (async () => {
      const out: ArrayLike<number>[] = []
      for (const skill of current.skills)
        out.push(await embedQuery!(skillText(skill)))
      return out
    })().catch((error: unknown) => {
      vectors = undefined
      throw error
    })
  }

  return {
    async search(query, limit = 5) {
      const current = sync()
      if (query.trim() === '' || current.skills.length === 0)
        return []
      const lexical = lexicalScores(current, query)
      let scores = lexical
      let semantic = embedQuery !== undefined && !unavailable
      if (semantic) {
        try {
          const [queryVector, all] = await Promise.all([embedQuery!(query), skillVectors(current)])
          const best = lexical.reduce((a, b) => Math.max(a, b), 0) || 1
          scores = Float64Array.from(all, (vector, i) => cosine(queryVector, vector) + VECTOR_LEXICAL * lexical[i]! / best)
        }
        catch (error) {
          if (!(error instanceof QueryModelUnavailableError))
            throw error
          unavailable = true
          semantic = false
          console.warn(`[skill-kit] search_skills ranks lexically: ${error.reason}. To rank by meaning, ${error.fix}.`)
        }
      }
      const order = [...scores.keys()]
        .filter(i => semantic || scores[i]! > 0)
        .sort((a, b) => scores[b]! - scores[a]! || a - b)
      return order.slice(0, limit).map((i) => {
        const skill = current.skills[i]!
        return { name: skill.name, description: skill.description, score: scores[i]! }
      })
    },
  }
}
