import type { KnowledgeProgress } from '../../src/knowledge/progress'
import { describe, expect, it } from 'vitest'
import { knowledgeProgressReporter } from '../../src/knowledge/progress'

/** A reporter on a clock the test moves: `at(ms, event)` sets the time, then reports. */
function reporter(options: { intervalMs?: number } = {}) {
  const lines: string[] = []
  let time = 1_000
  const report = knowledgeProgressReporter('docs', { write: line => lines.push(line), now: () => time, ...options })
  const at = (ms: number, event: KnowledgeProgress) => {
    time = 1_000 + ms
    report(event)
  }
  return { lines, at }
}

describe('knowledgeProgressReporter', () => {
  it('says what is cached and what to embed, then embedding with a rate and an estimate, at most every 2 s, then the time taken', () => {
    const { lines, at } = reporter()
    at(1_500, { phase: 'read', documents: 74, chunks: 400, windows: 1_020, cached: 812 })
    at(2_500, { phase: 'embed', done: 64, total: 208 })
    at(4_500, { phase: 'embed', done: 128, total: 208 })
    at(5_000, { phase: 'embed', done: 192, total: 208 })
    at(5_200, { phase: 'embed', done: 208, total: 208 })
    at(5_300, { phase: 'done' })
    expect(lines).toEqual([
      'docs: 74 documents, 1,020 windows (812 cached, 208 to embed)',
      // 128 windows in 3 s: 42.7/s, 80 left.
      'docs: embedded 128/208 windows (43/s, about 2 s left)',
      'docs: built in 5.3 s',
    ])
  })

  it('leaves out of the rate what was embedded before the folder was cut into windows (the build streams)', () => {
    const { lines, at } = reporter()
    at(0, { phase: 'embed', done: 32, total: 96, inFlight: 2 })
    at(500, { phase: 'embed', done: 200, total: 400, inFlight: 4 })
    at(1_000, { phase: 'read', documents: 9, chunks: 300, windows: 1_000, cached: 0 })
    at(3_500, { phase: 'embed', done: 450, total: 1_000, inFlight: 4 })
    at(5_000, { phase: 'embed', done: 1_000, total: 1_000, inFlight: 1 })
    at(5_000, { phase: 'done' })
    expect(lines).toEqual([
      'docs: 9 documents, 1,000 windows (0 cached, 1,000 to embed)',
      // 250 windows in 2.5 s since the read line: 100/s, 550 left.
      'docs: embedded 450/1,000 windows (100/s, about 6 s left, 4 requests in flight)',
      'docs: built in 5.0 s',
    ])
  })

  it('says how many requests an embedding server has in flight, and each retry', () => {
    const { lines, at } = reporter()
    at(0, { phase: 'read', documents: 9, chunks: 300, windows: 1_000, cached: 0 })
    at(1_000, { phase: 'embed', done: 128, total: 1_000, inFlight: 4 })
    at(2_000, { phase: 'retry', line: 'HTTP 429 for a request of 32 inputs; retrying in 7000 ms (attempt 2 of 4).' })
    at(4_000, { phase: 'embed', done: 512, total: 1_000, inFlight: 4 })
    at(6_000, { phase: 'embed', done: 992, total: 1_000, inFlight: 1 })
    at(6_100, { phase: 'embed', done: 1_000, total: 1_000, inFlight: 1 })
    at(6_200, { phase: 'done' })
    expect(lines).toEqual([
      'docs: 9 documents, 1,000 windows (0 cached, 1,000 to embed)',
      'docs: HTTP 429 for a request of 32 inputs; retrying in 7000 ms (attempt 2 of 4).',
      // 512 windows in 4 s: 128/s, 488 left.
      'docs: embedded 512/1,000 windows (128/s, about 4 s left, 4 requests in flight)',
      'docs: embedded 992/1,000 windows (165/s, about 1 s left, 1 request in flight)',
      'docs: built in 6.2 s',
    ])
  })

  it('counts the interval from the last line, and gives slow rates a decimal and long estimates in minutes', () => {
    const { lines, at } = reporter()
    at(0, { phase: 'read', documents: 1, chunks: 1, windows: 5_000, cached: 0 })
    at(1_999, { phase: 'embed', done: 8, total: 5_000 })
    at(2_000, { phase: 'embed', done: 16, total: 5_000 })
    at(3_999, { phase: 'embed', done: 20, total: 5_000 })
    at(4_000, { phase: 'embed', done: 24, total: 5_000 })
    at(124_000, { phase: 'done' })
    expect(lines).toEqual([
      'docs: 1 document, 5,000 windows (0 cached, 5,000 to embed)',
      'docs: embedded 16/5,000 windows (8.0/s, about 10 min left)',
      'docs: embedded 24/5,000 windows (6.0/s, about 14 min left)',
      'docs: built in 2 min 4 s',
    ])
  })

  it('keeps a fast build that embeds nothing quiet, and gives a slow one a single line', () => {
    const fast = reporter()
    fast.at(300, { phase: 'read', documents: 74, chunks: 400, windows: 1_020, cached: 1_020 })
    fast.at(1_999, { phase: 'done' })
    expect(fast.lines).toEqual([])

    const slow = reporter()
    slow.at(1_800, { phase: 'read', documents: 74, chunks: 400, windows: 1_020, cached: 1_020 })
    slow.at(2_040, { phase: 'done' })
    expect(slow.lines).toEqual(['docs: built in 2.0 s'])
  })

  it('always prints the first and the last line of a build that embeds, however fast', () => {
    const { lines, at } = reporter()
    at(10, { phase: 'read', documents: 3, chunks: 9, windows: 9, cached: 7 })
    at(20, { phase: 'embed', done: 2, total: 2 })
    at(30, { phase: 'done' })
    expect(lines).toEqual(['docs: 3 documents, 9 windows (7 cached, 2 to embed)', 'docs: built in 0.0 s'])
  })

  it('takes another interval, and says "about 1 s" rather than 0', () => {
    const { lines, at } = reporter({ intervalMs: 500 })
    at(0, { phase: 'read', documents: 2, chunks: 2, windows: 100, cached: 0 })
    at(500, { phase: 'embed', done: 99, total: 100 })
    expect(lines).toEqual([
      'docs: 2 documents, 100 windows (0 cached, 100 to embed)',
      'docs: embedded 99/100 windows (198/s, about 1 s left)',
    ])
  })

  it('gives estimates under 100 s in seconds', () => {
    const { lines, at } = reporter()
    at(0, { phase: 'read', documents: 74, chunks: 639, windows: 936, cached: 0 })
    at(16_000, { phase: 'embed', done: 128, total: 936 })
    at(80_000, { phase: 'embed', done: 640, total: 936 })
    expect(lines.slice(1)).toEqual([
      'docs: embedded 128/936 windows (8.0/s, about 2 min left)',
      'docs: embedded 640/936 windows (8.0/s, about 37 s left)',
    ])
  })
})
