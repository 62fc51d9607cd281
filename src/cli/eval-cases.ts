// The cases file of `skill-kit eval`: the Agent Skills guide's trigger evals
// (`[{ "query": "…", "should_trigger": true }]`, or `{ "evals": [...] }` with
// `prompt` for `query`, as skill-creator writes them), and retrieval cases
// (`{ "query": "…", "expected": "doc-id" }`) in the same list.

import { readFileSync } from 'node:fs'
import { CliError } from './io'
import { quoteForMessage } from '../runtime/redact'

/** A request that should (or should not) make a skill trigger. */
export interface TriggerCase {
  kind: 'trigger'
  query: string
  shouldTrigger: boolean
  /** The skill it is about: the case's `skill`, the file's, or `--skill`. */
  skill: string
}

/** A question whose answer is in one of `expected` documents of a knowledge base. */
export interface RetrievalCase {
  kind: 'retrieval'
  query: string
  expected: string[]
}

export type EvalCase = TriggerCase | RetrievalCase

/** The longest query a case may have: a request, not a document. */
const MAX_QUERY = 10_000

/**
 * Reads and checks a cases file. `defaultSkill` (`--skill`) names the skill
 * of trigger cases that neither they nor the file name. Every problem is a
 * CliError that names the file, the case (1-based) and the fix.
 */
export function readEvalCases(file: string, defaultSkill: string | undefined): EvalCase[] {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  }
  catch {
    throw new CliError(`${file}: cannot be read. Pass the path of a JSON file of eval cases.`)
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  }
  catch (error) {
    throw new CliError(`${file}: not valid JSON (${error instanceof Error ? error.message : String(error)}).`)
  }
  const top = typeof data === 'object' && data !== null && !Array.isArray(data) ? data as Record<string, unknown> : undefined
  const list = Array.isArray(data) ? data : top?.evals
  if (!Array.isArray(list))
    throw new CliError(`${file}: expected a JSON array of cases, or an object with an "evals" array, e.g. [{"query": "…", "should_trigger": true}].`)
  const fileSkill = top?.skill
  if (fileSkill !== undefined && typeof fileSkill !== 'string')
    throw new CliError(`${file}: "skill" must be the name of the skill the cases are about.`)
  if (list.length === 0)
    throw new CliError(`${file}: has no cases.`)
  return list.map((raw, i) => parseCase(raw, `${file}: case ${i + 1}`, (fileSkill as string | undefined) ?? defaultSkill))
}

function parseCase(raw: unknown, where: string, skill: string | undefined): EvalCase {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new CliError(`${where}: must be an object, e.g. {"query": "…", "should_trigger": true} or {"query": "…", "expected": "doc-id"}.`)
  const entry = raw as Record<string, unknown>
  const query = entry.query ?? entry.prompt
  if (typeof query !== 'string' || query.trim() === '')
    throw new CliError(`${where}: "query" (or "prompt") must be a non-empty string.`)
  if (query.length > MAX_QUERY)
    throw new CliError(`${where}: "query" has ${query.length} characters; at most ${MAX_QUERY} are accepted.`)
  const hasTrigger = 'should_trigger' in entry
  const hasExpected = 'expected' in entry
  if (hasTrigger === hasExpected)
    throw new CliError(`${where}: give either "should_trigger" (true or false: a trigger case) or "expected" (document IDs: a retrieval case).`)
  if (hasTrigger) {
    if (typeof entry.should_trigger !== 'boolean')
      throw new CliError(`${where}: "should_trigger" must be true or false, got ${quoteForMessage(entry.should_trigger)}.`)
    const own = entry.skill ?? skill
    if (typeof own !== 'string' || own.trim() === '')
      throw new CliError(`${where}: which skill should it trigger? Add "skill" to the case or to the file ({"skill": "<name>", "evals": [...]}), or pass --skill <name>.`)
    return { kind: 'trigger', query, shouldTrigger: entry.should_trigger, skill: own.trim() }
  }
  const expected = typeof entry.expected === 'string' ? [entry.expected] : entry.expected
  if (!Array.isArray(expected) || expected.length === 0 || !expected.every(id => typeof id === 'string' && id.trim() !== ''))
    throw new CliError(`${where}: "expected" must be a document ID or a non-empty list of them, as "skill-kit search" prints them.`)
  return { kind: 'retrieval', query, expected: expected.map(id => (id as string).trim()) }
}
