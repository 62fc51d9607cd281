// `skill-kit eval`: measures a skill's description and triggers before it
// ships (does it trigger for the requests it should, and only those?), and
// a knowledge base's ranking (is the expected document first?).
//
// A trigger case runs through both ways an agent finds a skill here:
// conditional activation (a fresh session observes the request: is the skill
// active after it?) and search_skills (is the skill among the first --top
// results?). A retrieval case runs through `skill-kit search`, with its
// options, so that the figures are those of the same ranking.

import type { CliIo } from './io'
import type { Command, ParsedArgs } from './command'
import type { EvalCase, RetrievalCase, TriggerCase } from './eval-cases'
import type { RankingScore, TriggerScore } from './eval-metrics'
import type { RankedSkillInput } from '../runtime/agent/skill-ranking'
import type { EmbedQuery } from '../runtime/knowledge/query-embedder'
import { relative } from 'node:path'
import { createSkillRanking } from '../runtime/agent/skill-ranking'
import { createActivation } from '../runtime/skill/activation'
import { hasModel } from '../knowledge/project'
import { SkillLoader } from '../skill/load'
import { flag, PROJECT_HELP, PROJECT_OPTION, stringOption } from './command'
import { readEvalCases } from './eval-cases'
import { firstRank, rankingScore, triggerScore } from './eval-metrics'
import { findSkillFiles, PathError } from './find-skills'
import { CliError, EXIT_USAGE, json, UsageError } from './io'
import { loadEmbedder } from './knowledge/embedder'
import { openCliProject } from './knowledge/project'
import { searchCommand } from './knowledge/search'

/** What `skill-kit eval --json` prints. */
export interface EvalReport {
  trigger?: {
    skills: string[]
    /** search_skills counts a skill as chosen within its first `top` results. */
    top: number
    /** How search_skills ranked: `vector` (and words) with `--vectors`, else `lexical`. */
    searchRanking: 'lexical' | 'vector'
    activation: TriggerScore
    searchSkills: TriggerScore
    /** Cases either way got wrong. */
    misses: { query: string, skill: string, shouldTrigger: boolean, activation: boolean | null, searchRank: number | null }[]
  }
  retrieval?: RankingScore & { misses: { query: string, expected: string[], got: string[] }[] }
}

/** `--top`: a positive integer, 1 by default (the agent loads the first skill it finds). */
function topOption(args: ParsedArgs): number {
  const text = stringOption(args, 'top')
  if (text === undefined)
    return 1
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 20)
    throw new UsageError(`--top must be an integer from 1 to 20, got "${text}".`)
  return Number(text)
}

/** The registry of the skills under `--skills` (default: the current folder), as the plugin compiles them. */
function loadSkills(args: ParsedArgs): (RankedSkillInput & { file: string })[] {
  const raw: unknown = args.values.skills
  const paths = Array.isArray(raw) ? raw as string[] : []
  let files: string[]
  try {
    files = findSkillFiles(paths.length > 0 ? paths : ['.'])
  }
  catch (error) {
    if (error instanceof PathError)
      throw new CliError(error.message, EXIT_USAGE)
    throw error
  }
  if (files.length === 0)
    throw new CliError(`No SKILL.md or *.skill.md under ${paths.length > 0 ? paths.join(', ') : 'the current folder'}: pass the skills' folder with --skills <dir>.`)
  const loader = new SkillLoader({ onInvalid: 'fallback' })
  return files.map((file) => {
    const { name, description, triggers } = loader.load(file).compiled
    return { name, description, triggers, file: relative(process.cwd(), file) }
  })
}

/** `--vectors`: the project's embedding model, as search_skills' query encoder. */
async function projectEncoder(args: ParsedArgs, io: CliIo): Promise<EmbedQuery> {
  const project = openCliProject(args, io)
  if (!hasModel(project))
    throw new CliError(`--vectors ranks skills with the project's embedding model, but "${project.config.name}" has none ("model": false in skill-kit.json): drop --vectors, or point --project at a project with a model.`)
  const embedder = await loadEmbedder(project, flag(args, 'offline'))
  return async text => (await embedder.embed([text], 'query'))[0]!
}

async function evalTriggers(cases: TriggerCase[], args: ParsedArgs, io: CliIo): Promise<NonNullable<EvalReport['trigger']>> {
  const skills = loadSkills(args)
  const names = new Set(skills.map(s => s.name))
  const unknown = [...new Set(cases.map(c => c.skill))].filter(name => !names.has(name))
  if (unknown.length > 0)
    throw new CliError(`The cases name ${unknown.map(n => `"${n}"`).join(', ')}, not among the ${skills.length} skills found (${[...names].slice(0, 10).join(', ')}${names.size > 10 ? ', …' : ''}): pass their folder with --skills <dir>.`)
  const top = topOption(args)
  const embedQuery = flag(args, 'vectors') ? await projectEncoder(args, io) : undefined
  const ranking = createSkillRanking(skills, { embedQuery })
  const activationOutcomes: [boolean, boolean][] = []
  const searchOutcomes: [boolean, boolean][] = []
  const misses: NonNullable<EvalReport['trigger']>['misses'] = []
  for (const c of cases) {
    const skill = skills.find(s => s.name === c.skill)!
    // A skill without topics, paths or projects is always listed: activation has nothing to decide.
    const conditional = skill.triggers !== null && skill.triggers !== undefined && !skill.triggers.alwaysActive
    let activated: boolean | null = null
    if (conditional) {
      const session = createActivation(skills, { log: () => {} })
      session.observeMessage(c.query)
      activated = session.isActive(c.skill)
      activationOutcomes.push([c.shouldTrigger, activated])
    }
    const found = (await ranking.search(c.query, 20)).map(m => m.name)
    const rank = found.indexOf(c.skill)
    const chosen = rank >= 0 && rank < top
    searchOutcomes.push([c.shouldTrigger, chosen])
    if (chosen !== c.shouldTrigger || (activated !== null && activated !== c.shouldTrigger))
      misses.push({ query: c.query, skill: c.skill, shouldTrigger: c.shouldTrigger, activation: activated, searchRank: rank >= 0 ? rank + 1 : null })
  }
  return {
    skills: [...new Set(cases.map(c => c.skill))],
    top,
    searchRanking: embedQuery ? 'vector' : 'lexical',
    activation: triggerScore(activationOutcomes),
    searchSkills: triggerScore(searchOutcomes),
    misses,
  }
}

/** Runs `skill-kit search` for each case, with the eval's project and search options, and reads its JSON. */
async function evalRetrieval(cases: RetrievalCase[], args: ParsedArgs, io: CliIo): Promise<NonNullable<EvalReport['retrieval']>> {
  const values: ParsedArgs['values'] = { 'top-k': '10' }
  for (const key of ['project', 'root', 'mode', 'encoder', 'offline'])
    values[key] = args.values[key]
  const warned = new Set<string>()
  const ranked: { query: string, ranked: string[], expected: string[] }[] = []
  for (const c of cases) {
    let out = ''
    const capture: CliIo = {
      out: (text) => { out += text },
      // The project's notices are the same for every case: said once.
      err: (text) => {
        if (!warned.has(text)) {
          warned.add(text)
          io.err(text)
        }
      },
      errIsTTY: false,
    }
    await searchCommand.run({ values, positionals: [c.query] }, capture)
    ranked.push({ query: c.query, ranked: (JSON.parse(out) as { id: string }[]).map(r => r.id), expected: c.expected })
  }
  return {
    ...rankingScore(ranked),
    misses: ranked.filter(r => firstRank(r.ranked.slice(0, 1), r.expected) < 0).map(r => ({ query: r.query, expected: r.expected, got: r.ranked.slice(0, 3) })),
  }
}

const percent = (x: number | null) => x === null ? 'n/a' : `${Math.round(x * 100)} %`

function triggerLines(label: string, score: TriggerScore): string {
  if (score.cases === 0)
    return `  ${label}: no case (the skills have no topics: they are always listed)`
  return `  ${label}: precision ${percent(score.precision)}, recall ${percent(score.recall)} (${score.cases} cases: ${score.truePositives} triggered as they should, ${score.falseNegatives} missed, ${score.falsePositives} false alarms, ${score.trueNegatives} rightly quiet)`
}

/** The report as text: figures first, then each case either way got wrong. */
export function formatReport(report: EvalReport): string {
  const lines: string[] = []
  if (report.trigger) {
    const t = report.trigger
    lines.push(`Trigger cases for ${t.skills.join(', ')}:`)
    lines.push(triggerLines('activation', t.activation))
    lines.push(triggerLines(`search_skills (${t.searchRanking}, first ${t.top})`, t.searchSkills))
    for (const m of t.misses) {
      const how = `activation ${m.activation === null ? 'n/a' : m.activation ? 'triggered' : 'quiet'}, search_skills rank ${m.searchRank ?? '-'}`
      lines.push(`  ${m.shouldTrigger ? 'should trigger' : 'should not trigger'} ${m.skill}: ${JSON.stringify(m.query)} (${how})`)
    }
  }
  if (report.retrieval) {
    const r = report.retrieval
    if (lines.length > 0)
      lines.push('')
    lines.push(`Retrieval cases (${r.cases}): top-1 ${percent(r.top1)}, MRR ${r.mrr.toFixed(3)}, recall@5 ${percent(r.recall5)}`)
    for (const m of r.misses)
      lines.push(`  not first: ${JSON.stringify(m.query)} expected ${m.expected.join(' or ')}, got ${m.got.join(', ') || '(nothing)'}`)
  }
  return `${lines.join('\n')}\n`
}

/** `skill-kit eval <cases.json>`: precision/recall of triggers, top-1/MRR of retrieval. */
export const evalCommand: Command = {
  name: 'eval',
  summary: '  eval <cases.json>     Measure skill triggers (precision, recall) and retrieval (top-1, MRR)',
  usage: `Usage: skill-kit eval <cases.json> [options]

Runs a file of cases and prints how they went. The file is a JSON array (or
{"skill": "<name>", "evals": [...]}) of:
  {"query": "…", "should_trigger": true}   a trigger case (the Agent Skills
      guide's format; "prompt" for "query" too): run through activation (does a
      fresh session activate the skill on this request?) and search_skills (is
      the skill among the first --top results?); precision and recall of each
  {"query": "…", "expected": "doc-id"}     a retrieval case (or a list of IDs):
      run through "skill-kit search" on the project; top-1, MRR and recall@5

Options:
  --skills <path>       Skill files and folders, repeatable (default: the current
                        folder)
  --skill <name>        The skill of trigger cases that do not name one
  --top <k>             search_skills chooses within its first k results (default 1)
  --vectors             search_skills ranks by vector too, with the embedding model
                        of the project (--project; "skill-kit model" installs it)
  --json                Print the report as JSON
  --mode, --encoder, --offline   Retrieval cases: as "skill-kit search" takes them
${PROJECT_HELP}`,
  options: {
    ...PROJECT_OPTION,
    skills: { type: 'string', multiple: true },
    skill: { type: 'string' },
    top: { type: 'string' },
    vectors: { type: 'boolean' },
    json: { type: 'boolean' },
    mode: { type: 'string' },
    encoder: { type: 'string' },
    offline: { type: 'boolean' },
  },
  maxPositionals: 1,
  async run(args, io) {
    const [file] = args.positionals
    if (file === undefined)
      throw new UsageError('eval needs a cases file, e.g. skill-kit eval evals.json --skills skills/.')
    const cases: EvalCase[] = readEvalCases(file, stringOption(args, 'skill'))
    const triggers = cases.filter((c): c is TriggerCase => c.kind === 'trigger')
    const retrieval = cases.filter((c): c is RetrievalCase => c.kind === 'retrieval')
    const report: EvalReport = {}
    if (triggers.length > 0)
      report.trigger = await evalTriggers(triggers, args, io)
    if (retrieval.length > 0)
      report.retrieval = await evalRetrieval(retrieval, args, io)
    io.out(flag(args, 'json') ? json(report) : formatReport(report))
    return 0
  },
}
