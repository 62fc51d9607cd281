import type { RankedSkillInput } from '../../../src/runtime/agent'
import { describe, expect, it, vi } from 'vitest'
import { QueryModelUnavailableError } from '../../../src/runtime'
import { createSearchSkillsTool, createSkillRanking, MAX_SKILL_RESULTS } from '../../../src/runtime/agent'
import { patchRegistry } from '../../../src/runtime/skill/modules'
import { registrySkill } from '../../support/registry-skill'

const triggers = (topics: string[]) => ({ paths: [], topics, projects: [], alwaysActive: false })

const SKILLS: RankedSkillInput[] = [
  { name: 'pdf-processing', description: 'Extract text and tables from PDF files, fill PDF forms.' },
  { name: 'pdf-processing-2', description: 'Merge and split PDF documents.' },
  { name: 'postgres-migrations', description: 'Write and review schema changes safely.', triggers: triggers(['database', 'supabase']) },
  { name: 'release-notes', description: 'Draft release notes from merged pull requests.' },
  { name: 'code-review', description: 'Review a pull request for correctness, tests and readability.' },
]

const names = async (query: string, skills = SKILLS) => (await createSkillRanking(skills).search(query)).map(m => m.name)

describe('createSkillRanking', () => {
  it('ranks by description words, stemmed, and leaves out skills that share none', async () => {
    // `merging` finds `Merge` and `merged` (one stem), `PDFs` finds `PDF`.
    expect(await names('merging two PDFs')).toEqual(['pdf-processing-2', 'pdf-processing', 'release-notes'])
    expect(await names('how do I review a pull request?')).toEqual(['code-review', 'release-notes', 'postgres-migrations'])
    expect(await names('tables in a spreadsheet')).toEqual(['pdf-processing'])
  })

  it('finds a skill by its trigger topics', async () => {
    expect(await names('our Supabase database')).toEqual(['postgres-migrations'])
  })

  it('puts a skill first when the request writes its name out, and only that name', async () => {
    expect(await names('use release-notes to review this')).toEqual(['release-notes', 'code-review', 'postgres-migrations'])
    expect((await names('load pdf-processing-2'))[0]).toBe('pdf-processing-2')
    expect((await names('load pdf-processing, merge nothing'))[0]).toBe('pdf-processing')
  })

  it('ranks by meaning with an embedder: a request that shares no word still finds its skill', async () => {
    // A toy embedder: one dimension per idea, so that "changelog" is near "release notes".
    const ideas = [['release', 'changelog'], ['pdf'], ['review'], ['schema', 'database']]
    const embedQuery = async (text: string) => ideas.map(words => words.some(w => text.toLowerCase().includes(w)) ? 1 : 0)
    const found = await createSkillRanking(SKILLS, { embedQuery }).search('write the changelog', 2)
    expect(found[0]!.name).toBe('release-notes')
    expect(found).toHaveLength(2)
  })

  it('ranks lexically, saying so once, when the query model cannot load where it runs', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const embedQuery = vi.fn(async () => {
      throw new QueryModelUnavailableError('/srv/models lacks config.json', 'install the model files')
    })
    const ranking = createSkillRanking(SKILLS, { embedQuery })
    expect((await ranking.search('merge PDF documents')).map(m => m.name)).toEqual(['pdf-processing-2', 'pdf-processing', 'release-notes'])
    expect((await ranking.search('release notes'))[0]!.name).toBe('release-notes')
    expect(warn.mock.calls).toEqual([['[skill-kit] search_skills ranks lexically: /srv/models lacks config.json. To rank by meaning, install the model files.']])
    warn.mockRestore()
  })

  it('fails a search whose embedder fails otherwise, as the tool\'s error result', async () => {
    const tool = createSearchSkillsTool(SKILLS, { embedQuery: async () => { throw new Error('connection refused') } })
    expect(await tool.execute({ query: 'pdf' })).toEqual({ content: 'search_skills failed: connection refused', isError: true })
  })

  it('follows a hot update of the live registry', async () => {
    const registry = [registrySkill('code-review', '---\nname: code-review\ndescription: Review a pull request.\n---\n\nBody.\n')]
    const ranking = createSkillRanking(registry)
    expect(await ranking.search('draft the changelog')).toEqual([])
    patchRegistry(registry, [...registry, registrySkill('changelog', '---\nname: changelog\ndescription: Draft the changelog of a release.\n---\n\nBody.\n')])
    expect((await ranking.search('draft the changelog')).map(m => m.name)).toEqual(['changelog'])
  })
})

describe('search_skills tool', () => {
  const tool = createSearchSkillsTool(SKILLS)

  it('answers with name and description lines, best first', async () => {
    expect(await tool.execute({ query: 'merge PDF documents', limit: 1 })).toEqual({
      content: 'Skills for this request, best first (load one with the skill tool, action "load"):\n- pdf-processing-2: Merge and split PDF documents.',
      isError: false,
    })
  })

  it('says so when nothing matches, and what to try', async () => {
    expect(await tool.execute({ query: 'quantum chromodynamics' })).toEqual({ content: expect.stringContaining('No skill matches this request.'), isError: false })
  })

  it.each([
    [{}, '"query" must be the task in a few words'],
    [{ query: 42 }, '"query" must be the task in a few words'],
    [{ query: 'x'.repeat(5000) }, '"query" has 5000 characters; at most 2000 are accepted.'],
    [{ query: 'pdf', limit: 0 }, `"limit" must be an integer from 1 to ${MAX_SKILL_RESULTS} (default 5); got 0.`],
    [{ query: 'pdf', limit: '3' }, '"limit" must be an integer from 1 to 20 (default 5); got "3".'],
  ])('refuses bad arguments with what to send (case %#)', async (args, message) => {
    const result = await tool.execute(args)
    expect(result.isError).toBe(true)
    expect(result.content).toContain(message)
  })
})
