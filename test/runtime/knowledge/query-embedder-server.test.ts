// serverQueryEmbedder (run time, and exported skills' search.mjs) against a
// loopback embedding server, and a fetch playing a browser's: redirects are
// refused, components no 32-bit float holds are named, and the key reaches
// no error, its causes included.

import type { EmbeddingCall, EmbeddingReply, EmbeddingServer } from '../../support/embedding-server'
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QueryModelUnavailableError, serverQueryEmbedder } from '../../../src/runtime'
import { unitVector } from '../../../src/runtime/knowledge/vector/pooling'
import { startEmbeddingServer } from '../../support/embedding-server'

const KEY = 'sk-Test-5c1A8e3D7b2F9046'

let server: EmbeddingServer
let elsewhere: EmbeddingServer
let reply: ((call: EmbeddingCall) => EmbeddingReply | undefined) | undefined
beforeAll(async () => {
  server = await startEmbeddingServer({ reply: call => reply?.(call) })
  elsewhere = await startEmbeddingServer()
})
afterAll(async () => {
  await Promise.all([server.close(), elsewhere.close()])
})

/** The error embedding `query` fails with, while the server answers as `answer` says. */
async function failure(answer: (call: EmbeddingCall) => EmbeddingReply | undefined, options: Partial<Parameters<typeof serverQueryEmbedder>[0]> = {}): Promise<Error> {
  reply = answer
  try {
    await serverQueryEmbedder({ baseUrl: server.baseUrl, model: 'test-embedder', apiKey: KEY, ...options })('which camera?')
  }
  catch (error) {
    return error as Error
  }
  finally {
    reply = undefined
  }
  throw new Error('it did not fail')
}

const FIX = 'To search by vector, set baseUrl to the URL the API answers at without a redirect.'

describe('serverQueryEmbedder', () => {
  it('never follows a redirect to another origin, which hears nothing', async () => {
    const heard = elsewhere.calls.length
    const error = await failure(() => ({ status: 307, headers: { location: `${elsewhere.baseUrl}/embeddings?key=${KEY}` } }))
    expect(error).toBeInstanceOf(QueryModelUnavailableError)
    expect(error.message).toBe(`the embedding server at ${server.baseUrl} answered HTTP 307, a redirect to another origin, "${new URL(elsewhere.baseUrl).origin}", which is never followed. ${FIX}`)
    expect(elsewhere.calls.length).toBe(heard)
  })

  it('refuses a redirect on the same server, quoting its path with the key replaced', async () => {
    const before = server.calls.length
    const error = await failure(() => ({ status: 308, headers: { location: `/v1/${KEY}/embeddings` } }))
    expect(error.message).toBe(`the embedding server at ${server.baseUrl} answered HTTP 308, a redirect to "/v1/[redacted]/embeddings" on the same server, which is not followed. ${FIX}`)
    expect(server.calls.length).toBe(before + 1)
  })

  it('refuses the opaque redirect a browser gives, and a downgrade to plain HTTP with the key in its host', async () => {
    const opaque = async () => ({ type: 'opaqueredirect', status: 0, ok: false, json: async () => null })
    const hidden = await failure(() => undefined, { baseUrl: 'https://embeddings.example.com/v1', fetch: opaque })
    expect(hidden.message).toBe(`the embedding server at https://embeddings.example.com/v1 answered a redirect, which the browser hides and which is never followed. ${FIX}`)
    const downgrade = async () => ({ status: 301, ok: false, headers: new Headers({ location: `http://${KEY}.embeddings.example.com/v1/embeddings` }), json: async () => null })
    const plain = await failure(() => undefined, { baseUrl: 'https://embeddings.example.com/v1', fetch: downgrade })
    expect(plain.message).toBe(`the embedding server at https://embeddings.example.com/v1 answered HTTP 301, a redirect to plain HTTP at "http://[redacted].embeddings.example.com", which is never followed. ${FIX}`)
  })

  it('says an answer that is not JSON is one, with no cause that quotes it (and the key it echoes)', async () => {
    const error = await failure(call => ({ body: `unauthorized: ${call.authorization}` }))
    expect(error.message).toBe(`the embedding server at ${server.baseUrl} answered something other than JSON. To search by vector, check that the embedding server at ${server.baseUrl} runs test-embedder, the model the knowledge base was built with.`)
    expect(inspect(error, { depth: 10 })).not.toContain(KEY)
  })

  it('says why a connection failed, the key replaced, and keeps no cause that could quote it', async () => {
    const refused = async () => {
      throw new TypeError('fetch failed', { cause: new Error(`bad header "Bearer ${KEY}"`) })
    }
    const error = await failure(() => undefined, { fetch: refused })
    expect(error.message).toBe(`the embedding server at ${server.baseUrl} cannot be reached ("bad header \\"Bearer [redacted]\\""). To search by vector, check that the embedding server at ${server.baseUrl} runs test-embedder, the model the knowledge base was built with.`)
    expect(inspect(error, { depth: 10 })).not.toContain(KEY)
  })

  it('names a component beyond a 32-bit float as such', async () => {
    for (const component of ['1e999', '1e39']) {
      const error = await failure(() => ({ body: `{"data":[{"index":0,"embedding":[0.5,${component}]}]}` }))
      expect(error.message).toContain('answered a vector holding a number out of the range of a 32-bit float.')
    }
    expect((await failure(() => ({ vectors: [[0.5, KEY]] }))).message).toContain('answered a vector holding something other than numbers.')
  })
})

describe('unitVector', () => {
  it('refuses what a Float32Array would hold as Infinity, and takes the largest float', () => {
    expect(unitVector([1, 1e39])).toEqual({ problem: 'out-of-range', value: 1e39 })
    expect(unitVector([-Infinity, 1])).toEqual({ problem: 'out-of-range', value: -Infinity })
    expect(unitVector([1, Number.NaN])).toEqual({ problem: 'not-a-number', value: Number.NaN })
    expect(unitVector(['1', 1])).toEqual({ problem: 'not-a-number', value: '1' })
    expect(unitVector([0, 0])).toEqual({ problem: 'zero' })
    expect(Array.from(unitVector([3.4e38, 0]) as Float32Array)).toEqual([1, 0])
  })
})
