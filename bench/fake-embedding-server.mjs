// An OpenAI-compatible embedding server on 127.0.0.1 that answers at a fixed
// rate, for bench/embedding-server.bench.mjs: each of `concurrency`
// connections embeds rate / concurrency inputs a second, so with that many
// requests in flight the server does `rate` inputs a second, the time a real
// server would need. Vectors are pseudo-random, seeded by the input's text.
// Run as its own process (so its JSON work does not share the build's event
// loop); it prints `listening <port>` and serves until killed.
//
//   node bench/fake-embedding-server.mjs <rate> <concurrency>

import { createServer } from 'node:http'

const rate = Number(process.argv[2] ?? 5000)
const concurrency = Number(process.argv[3] ?? 4)

/** FNV-1a of `text`: the seed of its vector. */
function seedOf(text) {
  let h = 0x811C9DC5
  for (let i = 0; i < text.length; i++)
    h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
  return h
}

function vectorOf(text, dims) {
  let s = seedOf(text) || 1
  const out = new Array(dims)
  for (let i = 0; i < dims; i++) {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    out[i] = ((s >>> 0) / 4294967296 - 0.5).toFixed(6)
  }
  return out
}

const server = createServer((request, response) => {
  const parts = []
  request.on('data', chunk => parts.push(chunk))
  request.on('end', () => {
    const body = JSON.parse(Buffer.concat(parts).toString('utf8'))
    const inputs = Array.isArray(body.input) ? body.input : [body.input]
    const dims = body.dimensions ?? 384
    setTimeout(() => {
      // Numbers as written by the JSON encoders of real servers (six decimals), without re-parsing them here.
      const data = inputs.map((text, index) => `{"object":"embedding","index":${index},"embedding":[${vectorOf(text, dims).join(',')}]}`)
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(`{"object":"list","model":${JSON.stringify(body.model)},"data":[${data.join(',')}],"usage":{"prompt_tokens":0,"total_tokens":0}}`)
    }, (inputs.length * concurrency / rate) * 1000)
  })
})
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`))
