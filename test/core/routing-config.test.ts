import { describe, expect, it } from 'vitest'
import { DiagnosticBag } from '../../src/core/diagnostics'
import { parseProjectConfig } from '../../src/knowledge/config'
import { createChatClient, RoutingError } from '../../src/routing/client'
import { DEFAULT_ROUTING } from '../../src/core/routing-config'

const project = '/projects/home'
const parse = (text: string) => {
  const bag = new DiagnosticBag(`${project}/skill-kit.json`)
  return { config: parseProjectConfig(project, text, bag), diagnostics: bag.sorted().map(d => [d.code, d.line, d.column, d.message]) }
}

describe('"routing" in skill-kit.json', () => {
  it('defaults to the offline router: no model, the seed\'s settings, 4 requests at once, SKILL.md under 2,000 tokens', () => {
    const { config, diagnostics } = parse('{ "name": "home" }')
    expect(diagnostics).toEqual([])
    expect(config?.routing).toEqual({
      baseUrl: 'https://api.openai.com/v1',
      model: '',
      apiKeyEnv: 'OPENAI_API_KEY',
      language: 'English',
      maxInputChars: 12000,
      pageSize: 8,
      timeoutMs: 120000,
      retryBudgetMs: 120000,
      concurrency: 4,
      maxEntryTokens: 2000,
      topics: 'words',
    })
    expect(config?.routing).toEqual(DEFAULT_ROUTING)
  })

  it('reads every setting', () => {
    const { config, diagnostics } = parse(JSON.stringify({ routing: { baseUrl: 'http://127.0.0.1:8080/v1', model: 'local', apiKeyEnv: 'LOCAL_KEY', language: 'German', maxInputChars: 4000, pageSize: 12, timeoutMs: 5000, retryBudgetMs: 0, concurrency: 2, maxEntryTokens: 1500, topics: 'vectors' } }))
    expect(diagnostics).toEqual([])
    expect(config?.routing).toEqual({ baseUrl: 'http://127.0.0.1:8080/v1', model: 'local', apiKeyEnv: 'LOCAL_KEY', language: 'German', maxInputChars: 4000, pageSize: 12, timeoutMs: 5000, retryBudgetMs: 0, concurrency: 2, maxEntryTokens: 1500, topics: 'vectors' })
  })

  it('reports every problem at its position, with suggestions', () => {
    const { config, diagnostics } = parse([
      '{',
      '  "routing": {',
      '    "baseUrl": "http://models.example.com/v1",',
      '    "model": 3,',
      '    "apiKeyEnv": "sk-live-123",',
      '    "pageSize": 20,',
      '    "timeoutMs": 0,',
      '    "retryBudgetMs": 3600001,',
      '    "topics": "vector",',
      '    "concurency": 2',
      '  }',
      '}',
    ].join('\n'))
    expect(config).toBeUndefined()
    expect(diagnostics).toEqual([
      ['config-invalid', 3, 16, '"routing.baseUrl" (http://models.example.com/v1) uses plain HTTP, which would send the API key and the documents unencrypted. Use https://, or http:// only for a server on this machine (localhost, 127.0.0.1, ::1).'],
      ['config-invalid', 4, 14, '"routing.model" must be a string.'],
      ['config-invalid', 5, 18, '"routing.apiKeyEnv" names the environment variable holding the key, e.g. "OPENAI_API_KEY"; the key itself never goes in skill-kit.json.'],
      ['config-invalid', 6, 17, '"routing.pageSize" must be an integer from 2 to 12.'],
      ['config-invalid', 7, 18, '"routing.timeoutMs" must be an integer of at least 100.'],
      ['config-invalid', 8, 22, '"routing.retryBudgetMs" must be an integer from 0 to 3600000.'],
      ['config-invalid', 9, 15, '"routing.topics" must be "words" (group documents by their words) or "vectors" (by the vectors of the project\'s index).'],
      ['config-unknown-key', 10, 5, 'Unknown key "routing.concurency". Did you mean "routing.concurrency"?'],
    ])
  })

  it('rejects a routing that is not an object, and a base URL that is not one', () => {
    expect(parse('{\n  "routing": "gpt"\n}').diagnostics).toEqual([['config-invalid', 2, 14, '"routing" must be an object (the settings of routed index pages).']])
    expect(parse('{ "routing": { "baseUrl": "ftp://x/v1", "pageSize": 1 } }').diagnostics).toEqual([
      ['config-invalid', 1, 27, '"routing.baseUrl" must be an https:// URL, e.g. "https://api.openai.com/v1".'],
      ['config-invalid', 1, 53, '"routing.pageSize" must be an integer from 2 to 12.'],
    ])
  })

  it.each(['http://localhost:1234/v1', 'http://127.0.0.1/v1', 'http://127.9.9.9:8080/v1', 'http://[::1]:8000/v1', 'https://models.example.com/v1'])('accepts %s', (baseUrl) => {
    expect(parse(JSON.stringify({ routing: { baseUrl } })).diagnostics).toEqual([])
    expect(createChatClient({ baseUrl, model: 'm', apiKey: 'k', timeoutMs: 1000 }).endpoint).toBe(baseUrl)
  })

  it('refuses plain HTTP to a host that is not this machine before any request', async () => {
    let requests = 0
    const fetch = (async () => {
      requests++
      return new Response('{}')
    }) as typeof globalThis.fetch
    for (const baseUrl of ['http://models.example.com/v1', 'http://10.0.0.1/v1', 'http://128.0.0.1/v1', 'http://localhost.example.com/v1']) {
      expect(() => createChatClient({ baseUrl, model: 'm', apiKey: 'k', timeoutMs: 1000, fetch })).toThrow(new RoutingError(`"routing.baseUrl" (${baseUrl}) uses plain HTTP, which would send the API key and the documents unencrypted. Use https://, or http:// only for a server on this machine (localhost, 127.0.0.1, ::1).`))
    }
    expect(requests).toBe(0)
  })
})
