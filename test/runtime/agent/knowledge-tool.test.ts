import { describe, expect, it } from 'vitest'
import { encodeSnapshot } from '../../../src/knowledge/snapshot'
import { createKnowledgeBase, decodeSnapshot } from '../../../src/runtime'
import { createKnowledgeTool, toAnthropicTools } from '../../../src/runtime/agent'

/** A lexical knowledge base (no model) of hand-made documents. */
function knowledgeBase(name: string, docs: { id: string, title: string, heading: string, text: string }[]) {
  const snapshot = encodeSnapshot({
    model: 'test',
    encoding: 'float32',
    lexical: true,
    documents: docs.map(d => ({ id: d.id, title: d.title, description: `About ${d.title.toLowerCase()}`, path: `${d.id}.md`, tokenCount: 10 })),
    chunks: docs.map((d, i) => ({ documentIndex: i, vector: [1, 0], heading: [d.title, d.heading], text: d.text })),
  })
  const documents = decodeSnapshot(snapshot).documents
  return createKnowledgeBase({ name, documents, loadSnapshot: async () => snapshot, bodies: docs.map(d => async () => `# ${d.title}\n\n${d.text}\n`), vectors: false })
}

const home = knowledgeBase('home', [
  { id: 'backup', title: 'Backups', heading: 'Nightly', text: 'nightly backup of the home folder' },
  { id: 'printer', title: 'Printer', heading: 'Jams', text: 'paper jam in the printer tray' },
])
const office = knowledgeBase('office', [
  { id: 'printer', title: 'Office printer', heading: 'Toner', text: 'replace the toner of the office printer' },
  { id: 'vpn', title: 'VPN', heading: 'Connect', text: 'connect to the office VPN from home' },
])

describe('createKnowledgeTool', () => {
  it('searches one base: metadata and the best passage\'s heading as JSON, never bodies', async () => {
    const tool = createKnowledgeTool(home)
    expect(tool.parameters.properties).not.toHaveProperty('base')
    expect(tool.description).toContain('"home" (2 documents)')
    const result = await tool.execute({ action: 'search', query: 'the printer is jammed' })
    expect(result.isError).toBe(false)
    expect(JSON.parse(result.content)).toEqual([{ id: 'printer', title: 'Printer', description: 'About printer', heading: 'Printer › Jams', score: expect.any(Number) }])
    expect(result.content).not.toContain('paper jam in the printer tray')
  })

  it('retrieves a document\'s whole text by the ID a search gave, and says what to do for an unknown one', async () => {
    const tool = createKnowledgeTool(home)
    expect(await tool.execute({ action: 'retrieve', id: 'backup' })).toEqual({ content: '# Backups\n\nnightly backup of the home folder\n', isError: false })
    expect(await tool.execute({ action: 'retrieve', id: 'backups' })).toEqual({ content: '"backups" is not a document of "home". Did you mean "backup"?', isError: true })
  })

  it('searches several bases at once, merged by score, and retrieves from the one that holds an ID', async () => {
    const tool = createKnowledgeTool([home, office])
    expect(tool.parameters.properties.base).toMatchObject({ enum: ['home', 'office'] })
    const hits = JSON.parse((await tool.execute({ action: 'search', query: 'printer' })).content) as { id: string, base: string, score: number }[]
    expect(hits.map(h => `${h.base}/${h.id}`).sort()).toEqual(['home/printer', 'office/printer'])
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score)
    expect((await tool.execute({ action: 'search', query: 'printer', base: 'office' })).content).not.toContain('"home"')
    expect((await tool.execute({ action: 'retrieve', id: 'vpn' })).content).toContain('office VPN')
    expect(await tool.execute({ action: 'retrieve', id: 'printer' })).toEqual({ content: '"printer" is a document of "home" and "office": pass "base" to say which.', isError: true })
    expect((await tool.execute({ action: 'retrieve', id: 'printer', base: 'office' })).content).toContain('toner')
    expect(await tool.execute({ action: 'search', query: 'x', base: 'ofice' })).toEqual({ content: 'There is no knowledge base "ofice". Did you mean "office"? Knowledge bases: home, office.', isError: true })
  })

  it.each([
    [{ query: 'printer' }, '"action" must be "search" (with a query) or "retrieve" (with an id); got null.'],
    [{ action: 'search' }, '"query" must be a non-empty string'],
    [{ action: 'retrieve', id: 7 }, '"id" must be a non-empty string'],
    [{ action: 'search', query: 'printer', limit: 99 }, '"limit" must be an integer from 1 to 20; got 99.'],
    [{ action: 'search', query: 'q'.repeat(3000) }, '"query" has 3000 characters; at most 2000 are accepted.'],
  ])('refuses bad arguments with what to send (case %#)', async (args, message) => {
    const result = await createKnowledgeTool(home).execute(args)
    expect(result.isError).toBe(true)
    expect(result.content).toContain(message)
  })

  it('is an agent tool the adapters take', async () => {
    const { tools, runToolUses } = toAnthropicTools([createKnowledgeTool(home)])
    expect(tools[0]!.name).toBe('knowledge')
    const [answer] = await runToolUses([{ type: 'tool_use', id: 't1', name: 'knowledge', input: { action: 'retrieve', id: 'printer' } }])
    expect(answer).toEqual({ type: 'tool_result', tool_use_id: 't1', content: '# Printer\n\npaper jam in the printer tray\n', is_error: false })
  })
})
