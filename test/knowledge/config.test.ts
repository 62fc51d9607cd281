import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { DiagnosticBag } from '../../src/core/diagnostics'
import { defaultProjectConfig, parseProjectConfig } from '../../src/knowledge/config'
import { VectorCache, vectorKey } from '../../src/knowledge/vector-cache'

const project = '/projects/home'
const parse = (text: string) => {
  const bag = new DiagnosticBag(`${project}/skill-kit.json`)
  return { config: parseProjectConfig(project, text, bag), diagnostics: bag.sorted().map(d => [d.code, d.line, d.column, d.message]) }
}

describe('parseProjectConfig', () => {
  it('fills every default, with absolute folders', () => {
    const { config, diagnostics } = parse('{ "name": "home" }')
    expect(diagnostics).toEqual([])
    expect(config).toEqual({
      name: 'home',
      description: '',
      knowledge: '/projects/home/knowledge',
      output: '/projects/home/.skill-kit/index',
      cache: '/projects/home/.skill-kit/cache',
      model: { id: 'Xenova/all-MiniLM-L6-v2', revision: '751bff37182d3f1213fa05d7196b954e230abad9', dtype: 'q8', cacheDir: '/projects/home/.skill-kit/models', maxTokens: 256, queryPrefix: '', documentPrefix: '' },
      chunk: { maxTokens: 256, overlapTokens: 32 },
      search: { topK: 5, threshold: 0.3 },
      queryEncoder: 'auto',
      watch: { settleMs: 50, maxWaitMs: 1000 },
      routing: { baseUrl: 'https://api.openai.com/v1', model: '', apiKeyEnv: 'OPENAI_API_KEY', language: 'English', maxInputChars: 12000, pageSize: 8, timeoutMs: 120000, retryBudgetMs: 120000, concurrency: 4, maxEntryTokens: 2000, topics: 'words' },
      maxDocumentBytes: 4_194_304,
    })
  })

  it('reads what init writes', () => {
    const { config, diagnostics } = parse(JSON.stringify(defaultProjectConfig('home'), null, 2))
    expect(diagnostics).toEqual([])
    expect(config?.description).toContain('home knowledge base')
    expect(config?.routing).toEqual({ baseUrl: 'https://api.openai.com/v1', model: '', apiKeyEnv: 'OPENAI_API_KEY', language: 'English', maxInputChars: 12000, pageSize: 8, timeoutMs: 120000, retryBudgetMs: 120000, concurrency: 4, maxEntryTokens: 2000, topics: 'words' })
  })

  it('reports every problem with its line', () => {
    const { config, diagnostics } = parse([
      '{',
      '  "output": "../elsewhere",',
      '  "cache": "knowledge/cache",',
      '  "model": { "dtype": "q3", "maxTokens": 128 },',
      '  "chunk": { "maxTokens": 512, "overlapTokens": -1 },',
      '  "search": { "threshold": 2 },',
      '  "serach": {}',
      '}',
    ].join('\n'))
    expect(config).toBeUndefined()
    expect(diagnostics).toEqual([
      ['config-path-outside', 2, 13, '"output" must be a subfolder of the project, e.g. ".skill-kit/index".'],
      ['config-path-overlap', 3, 12, '"knowledge" and "cache" must be separate folders of the project.'],
      ['config-invalid', 4, 23, '"model.dtype" must be one of q8, fp32, fp16, int8, uint8, q4, bnb4, q4f16.'],
      ['config-invalid', 5, 27, '"chunk.maxTokens" (512) cannot exceed "model.maxTokens" (128).'],
      ['config-invalid', 5, 49, '"chunk.overlapTokens" must be a non-negative integer.'],
      ['config-invalid', 6, 28, '"search.threshold" must be a number from -1 to 1.'],
      ['config-unknown-key', 7, 3, 'Unknown key "serach". It looks like "search", which is set already: keep one of them.'],
    ])
  })

  it('takes a model ID, never a path', () => {
    for (const id of ['../../../etc', '/etc', 'a/b/c', 'owner/..', 'a b', '']) {
      const { config, diagnostics } = parse(JSON.stringify({ model: { id } }))
      expect(config).toBeUndefined()
      expect(diagnostics).toEqual([id === ''
        ? ['config-invalid', 1, 16, '"model.id" must be a non-empty string.']
        : ['config-invalid', 1, 16, '"model.id" must be a model ID such as "Xenova/all-MiniLM-L6-v2": letters, digits, ".", "_" and "-", with at most one "/".']])
    }
    expect(parse(JSON.stringify({ model: { id: 'sentence-transformers/all-MiniLM-L6-v2.q8' } })).diagnostics).toEqual([])
  })

  it('reads "model": false as no model, where chunk sizes need not fit a model', () => {
    const { config, diagnostics } = parse('{ "model": false, "chunk": { "maxTokens": 1024, "overlapTokens": 64 } }')
    expect(diagnostics).toEqual([])
    expect(config).toMatchObject({ model: false, chunk: { maxTokens: 1024, overlapTokens: 64 } })
  })

  it('takes an object or false for "model", nothing else', () => {
    const message = '"model" must be an object (the embedding model\'s settings, {} for the default) or false (no model: lexical search only).'
    for (const value of ['true', '"none"', 'null', '[]', '0']) {
      expect(parse(`{\n  "name": "home",\n  "model": ${value}\n}`)).toEqual({ config: undefined, diagnostics: [['config-invalid', 3, 12, message]] })
    }
    expect(parse('{ "model": {} }').config?.model).toMatchObject({ id: 'Xenova/all-MiniLM-L6-v2' })
  })

  it('reads an embedding server\'s settings beside the model\'s, with defaults', () => {
    const { config, diagnostics } = parse('{ "model": { "provider": "openai-compatible", "id": "nomic-embed-text:v1.5", "baseUrl": "http://localhost:11434/v1/", "dimensions": 256 } }')
    expect(diagnostics).toEqual([])
    expect(config?.model).toEqual({
      id: 'nomic-embed-text:v1.5',
      revision: '751bff37182d3f1213fa05d7196b954e230abad9',
      dtype: 'q8',
      cacheDir: '/projects/home/.skill-kit/models',
      maxTokens: 256,
      queryPrefix: '',
      documentPrefix: '',
      server: { baseUrl: 'http://localhost:11434/v1/', apiKeyEnv: 'OPENAI_API_KEY', dimensions: 256, batchSize: 32, maxBatchTokens: 16384, concurrency: 4, timeoutMs: 60000, retryBudgetMs: 120000 },
    })
  })

  it('reports every problem of an embedding server\'s settings at its place', () => {
    const lines = (model: string) => parse(`{\n  "model": ${model}\n}`).diagnostics
    expect(lines('{ "provider": "tei" }')).toEqual([
      ['config-invalid', 2, 26, '"model.provider" must be "transformers" (the model runs in the build) or "openai-compatible" (an embedding server\'s POST /v1/embeddings).'],
    ])
    expect(lines('{ "provider": "openai-compatible" }')).toEqual([
      ['config-invalid', 2, 26, '"model.provider" "openai-compatible" needs "model.id": the model\'s name on the server (the "model" of its requests).'],
      ['config-invalid', 2, 26, '"model.provider" "openai-compatible" needs "model.baseUrl": the server\'s OpenAI-compatible API, e.g. "http://127.0.0.1:8080/v1" for a server on this machine.'],
    ])
    expect(lines('{ "provider": "openai-compatible", "id": "bge", "baseUrl": "ftp://x", "apiKeyEnv": "sk-123", "batchSize": 0, "maxBatchTokens": 100, "concurrency": 65, "timeoutMs": 5, "dimensions": 1.5 }')).toEqual([
      ['config-invalid', 2, 71, '"model.baseUrl" must be an https:// URL, e.g. "https://api.openai.com/v1".'],
      ['config-invalid', 2, 95, '"model.apiKeyEnv" names the environment variable holding the key, e.g. "OPENAI_API_KEY"; the key itself never goes in skill-kit.json.'],
      ['config-invalid', 2, 118, '"model.batchSize" must be an integer from 1 to 2048.'],
      ['config-invalid', 2, 139, '"model.maxBatchTokens" must be an integer of at least 256.'],
      ['config-invalid', 2, 159, '"model.concurrency" must be an integer from 1 to 64.'],
      ['config-invalid', 2, 176, '"model.timeoutMs" must be an integer of at least 100.'],
      ['config-invalid', 2, 193, '"model.dimensions" must be an integer from 1 to 65536.'],
    ])
    expect(lines('{ "id": "bge", "baseUrl": "https://example.com/v1", "concurrency": 2 }')).toEqual([
      ['config-invalid', 2, 38, '"model.baseUrl" applies to an embedding server only: set "model.provider" to "openai-compatible", or remove it.'],
      ['config-invalid', 2, 79, '"model.concurrency" applies to an embedding server only: set "model.provider" to "openai-compatible", or remove it.'],
    ])
  })

  it('reads an embedding server\'s retry budget, from 0 to an hour, and checks it at its place', () => {
    const server = (budget: string) => parse(`{\n  "model": { "provider": "openai-compatible", "id": "bge", "baseUrl": "http://127.0.0.1:8080/v1", "retryBudgetMs": ${budget} }\n}`)
    expect(server('0').config?.model).toMatchObject({ server: { retryBudgetMs: 0, timeoutMs: 60000 } })
    expect(server('3600000').config?.model).toMatchObject({ server: { retryBudgetMs: 3600000 } })
    for (const budget of ['-1', '1.5', '3600001', '"60000"'])
      expect(server(budget).diagnostics).toEqual([['config-invalid', 2, 116, '"model.retryBudgetMs" must be an integer from 0 to 3600000.']])
    expect(parse('{\n  "model": { "retryBudgetMs": 1000 }\n}').diagnostics).toEqual([
      ['config-invalid', 2, 31, '"model.retryBudgetMs" applies to an embedding server only: set "model.provider" to "openai-compatible", or remove it.'],
    ])
  })

  it('reads queryEncoder, "auto" by default, and says what each value does when it is none of them', () => {
    expect(parse('{ "queryEncoder": "static" }').config?.queryEncoder).toBe('static')
    expect(parse('{ "queryEncoder": "model", "model": false }').config?.queryEncoder).toBe('model')
    expect(parse(JSON.stringify(defaultProjectConfig('home'))).config?.queryEncoder).toBe('auto')
    const message = '"queryEncoder" must be "auto" (a static table distilled from the model, unless the app loads the model), "static" (the table only: no model at run time) or "model" (the model embeds every query).'
    for (const value of ['"table"', 'true', 'null', '{}'])
      expect(parse(`{\n  "queryEncoder": ${value}\n}`)).toEqual({ config: undefined, diagnostics: [['config-invalid', 2, 19, message]] })
  })

  it('reads url, a preset or a pattern of the pages\' URLs, none by default', () => {
    expect(parse('{ "url": "vitepress" }').config?.url).toBe('vitepress')
    expect(parse('{ "url": "/docs/{path}.html" }').config?.url).toBe('/docs/{path}.html')
    expect(parse('{}').config).not.toHaveProperty('url')
    const message = '"url" must be "vitepress", "vitepress-html", "astro" or a pattern with {path} or {id}, such as "/docs/{path}": each document\'s page URL, for the search UI.'
    for (const value of ['"vuepress"', '"/docs/"', 'true', '{}'])
      expect(parse(`{\n  "url": ${value}\n}`)).toEqual({ config: undefined, diagnostics: [['config-invalid', 2, 10, message]] })
  })

  it('refuses "static" where no table can be distilled: no model, or a model on an embedding server', () => {
    expect(parse('{\n  "model": false,\n  "queryEncoder": "static"\n}').diagnostics).toEqual([
      ['config-invalid', 3, 19, '"queryEncoder" "static" embeds queries with a table distilled from the model, but "model" is false (no vectors to search): remove "queryEncoder", or give the model\'s settings.'],
    ])
    const server = '"model": { "provider": "openai-compatible", "id": "nomic-embed-text", "baseUrl": "http://127.0.0.1:8080/v1" }'
    expect(parse(`{\n  ${server},\n  "queryEncoder": "static"\n}`).diagnostics).toEqual([
      ['config-invalid', 3, 19, '"queryEncoder" "static" distils a table from the model\'s token vectors, which an embedding server does not give: set "queryEncoder" to "model", or run the model in the build ("model.provider": "transformers").'],
    ])
    // `auto` is the model's there: no error.
    expect(parse(`{ ${server}, "queryEncoder": "auto" }`).diagnostics).toEqual([])
  })

  it('reads the watch settings, and the Semantic Skill Kit\'s', () => {
    expect(parse('{ "watch": { "settleMs": 0, "maxWaitMs": 300 } }')).toEqual({ config: expect.objectContaining({ watch: { settleMs: 0, maxWaitMs: 300 } }), diagnostics: [] })
    // A seed project's watch settings: its settle time is ours, its polling period is checked and unused.
    expect(parse('{ "watch": { "intervalMs": 1000, "settleMs": 800 } }')).toEqual({ config: expect.objectContaining({ watch: { settleMs: 800, maxWaitMs: 1000 } }), diagnostics: [] })
  })

  it('reports every problem of the watch settings at its place', () => {
    const { config, diagnostics } = parse([
      '{',
      '  "watch": {',
      '    "settleMs": -5,',
      '    "maxWaitMs": "1s",',
      '    "intervalMs": 10,',
      '    "settle": 20',
      '  }',
      '}',
    ].join('\n'))
    expect(config).toBeUndefined()
    expect(diagnostics).toEqual([
      ['config-invalid', 3, 17, '"watch.settleMs" must be an integer from 0 to 60000 (milliseconds).'],
      ['config-invalid', 4, 18, '"watch.maxWaitMs" must be an integer from 0 to 600000 (milliseconds).'],
      ['config-invalid', 5, 19, '"watch.intervalMs" must be an integer of at least 50 (milliseconds).'],
      ['config-unknown-key', 6, 5, 'Unknown key "settle" in "watch". It looks like "settleMs", which is set already: keep one of them.'],
    ])
    // A guess the file already holds is no fix: renaming would make a duplicate key.
    expect(parse('{\n  "search": {},\n  "serach": {},\n  "routing": { "pageSize": 8, "pagesize": 4, "languge": "English" }\n}').diagnostics).toEqual([
      ['config-unknown-key', 3, 3, 'Unknown key "serach". It looks like "search", which is set already: keep one of them.'],
      ['config-unknown-key', 4, 31, 'Unknown key "routing.pagesize". It looks like "routing.pageSize", which is set already: keep one of them.'],
      ['config-unknown-key', 4, 46, 'Unknown key "routing.languge". Did you mean "routing.language"?'],
    ])
    expect(parse('{\n  "watch": { "settleMs": 500, "maxWaitMs": 200 }\n}').diagnostics).toEqual([
      ['config-invalid', 2, 44, '"watch.maxWaitMs" (200) cannot be less than "watch.settleMs" (500).'],
    ])
    expect(parse('{\n  "watch": true\n}').diagnostics).toEqual([['config-invalid', 2, 12, '"watch" must be an object.']])
  })

  it('reads a file saved with a byte order mark', () => {
    const { config, diagnostics } = parse('\uFEFF{ "name": "bom", "search": { "topK": 3 } }')
    expect(diagnostics).toEqual([])
    expect(config).toMatchObject({ name: 'bom', search: { topK: 3 } })
  })

  it('reads maxDocumentBytes, a number of bytes from 1 KiB to 256 MiB', () => {
    expect(parse('{ "maxDocumentBytes": 16777216 }').config?.maxDocumentBytes).toBe(16_777_216)
    const rule = '"maxDocumentBytes" must be an integer from 1024 to 268435456 (bytes of one document).'
    expect(parse('{\n  "maxDocumentBytes": "4 MiB"\n}').diagnostics).toEqual([['config-invalid', 2, 23, rule]])
    expect(parse('{\n  "maxDocumentBytes": 100\n}').diagnostics).toEqual([['config-invalid', 2, 23, rule]])
  })

  it('refuses a file over 256 KiB in its own terms, before parsing it', () => {
    const padded = `{ "name": "home", "description": "${'a'.repeat(262_144)}" }`
    expect(parse(padded)).toEqual({ config: undefined, diagnostics: [['config-too-large', 1, 1, 'skill-kit.json has 262,181 bytes; at most 262,144 (256 KiB) are read. It holds settings only: remove what is not a setting, and keep documents in the knowledge folder.']] })
    // Counted in bytes, as the file is: 140,000 "é" are 280,000 bytes.
    expect(parse(`{ "description": "${'é'.repeat(140_000)}" }`).diagnostics).toEqual([['config-too-large', 1, 1, 'skill-kit.json has 280,021 bytes; at most 262,144 (256 KiB) are read. It holds settings only: remove what is not a setting, and keep documents in the knowledge folder.']])
  })

  it('reports JSON syntax errors', () => {
    expect(parse('{\n  "name": "home",\n}').diagnostics).toEqual([['config-json', 3, 1, expect.stringContaining('skill-kit.json is not valid JSON')]])
  })
})

describe('VectorCache', () => {
  it('round-trips vectors through its file, and ignores a damaged one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'skill-kit-vectors-'))
    const cache = new VectorCache(dir, 'model@rev', 3)
    cache.set(vectorKey([101, 2023, 102]), new Float32Array([0.1, 0.2, 0.3]))
    cache.set(vectorKey('text'), new Float32Array([1, 0, 0]))
    cache.save()
    const again = new VectorCache(dir, 'model@rev', 3)
    expect(again.size).toBe(2)
    expect([...again.get(vectorKey([101, 2023, 102]))!]).toEqual([...new Float32Array([0.1, 0.2, 0.3])])
    expect(new VectorCache(dir, 'other-model', 3).size).toBe(0)
    writeFileSync(again.file, 'garbage')
    expect(new VectorCache(dir, 'model@rev', 3).size).toBe(0)
    expect(() => again.set('x', new Float32Array(2))).toThrow(/2-dimensional/)
    rmSync(dir, { recursive: true })
  })
})
