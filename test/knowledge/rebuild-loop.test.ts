// The rebuild loop on a hand-driven clock and builds that end when the test
// says: debouncing, serialization, stale results, failures, settled and close.

import type { RebuildContext, RebuildTimers } from '../../src/knowledge/rebuild-loop'
import { describe, expect, it } from 'vitest'
import { RebuildLoop } from '../../src/knowledge/rebuild-loop'

/** Timers that fire only when the test advances the clock. */
function manualClock(): RebuildTimers & { advance: (ms: number) => void, armed: () => number } {
  let now = 0
  let next = 0
  const timers = new Map<number, { at: number, callback: () => void }>()
  return {
    setTimeout(callback, ms) {
      timers.set(++next, { at: now + ms, callback })
      return next
    },
    clearTimeout(handle) {
      timers.delete(handle as number)
    },
    advance(ms) {
      const end = now + ms
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0]
        if (!due)
          break
        timers.delete(due[0])
        now = due[1].at
        due[1].callback()
      }
      now = end
    },
    armed: () => timers.size,
  }
}

/** A build the test ends: each call is recorded with its context and resolves when told. */
function controlledBuilds<T>() {
  const calls: { context: RebuildContext, finish: (value: T) => void, fail: (error: unknown) => void }[] = []
  return {
    calls,
    build: (context: RebuildContext) => new Promise<T>((resolve, reject) => {
      calls.push({ context, finish: resolve, fail: reject })
    }),
  }
}

/** Lets the loop's promise callbacks run. */
const flush = () => new Promise<void>(resolve => setImmediate(resolve))

function setup(options: { settleMs?: number, maxWaitMs?: number } = {}) {
  const clock = manualClock()
  const builds = controlledBuilds<string>()
  const results: [string, string[]][] = []
  const errors: [unknown, string[]][] = []
  const discarded: string[][] = []
  const loop = new RebuildLoop<string>({
    settleMs: 50,
    maxWaitMs: 1000,
    ...options,
    timers: clock,
    build: builds.build,
    onResult: (result, context) => results.push([result, [...context.changes]]),
    onError: (error, context) => errors.push([error, [...context.changes]]),
    onDiscard: context => discarded.push([...context.changes]),
  })
  return { clock, builds, results, errors, discarded, loop }
}

describe('RebuildLoop', () => {
  it('builds once for a burst of 60 changes, settleMs after the last one', async () => {
    const { clock, builds, results, loop } = setup()
    for (let i = 0; i < 60; i++) {
      loop.change(`doc-${i}.md`)
      clock.advance(10)
    }
    expect(builds.calls).toHaveLength(0)
    clock.advance(39)
    expect(builds.calls).toHaveLength(0)
    clock.advance(1)
    expect(builds.calls).toHaveLength(1)
    expect(builds.calls[0]!.context.changes).toEqual(Array.from({ length: 60 }, (_, i) => `doc-${i}.md`))
    builds.calls[0]!.finish('index 1')
    await loop.settled()
    expect(results).toEqual([['index 1', builds.calls[0]!.context.changes]])
    expect(clock.armed()).toBe(0)
  })

  it('lists a path changed twice once', () => {
    const { clock, builds, loop } = setup()
    loop.change('a.md')
    loop.change('b.md')
    loop.change('a.md')
    clock.advance(50)
    expect(builds.calls[0]!.context.changes).toEqual(['a.md', 'b.md'])
  })

  it('builds maxWaitMs after the first change when changes never settle', () => {
    const { clock, builds, loop } = setup({ settleMs: 50, maxWaitMs: 200 })
    for (let i = 0; i < 30; i++) {
      loop.change(`doc-${i}.md`)
      clock.advance(20)
    }
    // 600 ms of changes 20 ms apart: builds at 200 ms, and the later changes wait for that build.
    expect(builds.calls).toHaveLength(1)
    expect(builds.calls[0]!.context.changes).toEqual(Array.from({ length: 10 }, (_, i) => `doc-${i}.md`))
  })

  it('never delivers a build that a change made stale, and builds exactly once more', async () => {
    const { clock, builds, results, discarded, loop } = setup()
    loop.change('a.md')
    clock.advance(50)
    const first = builds.calls[0]!
    expect(first.context.stale()).toBe(false)
    loop.change('b.md')
    loop.change('c.md')
    expect(first.context.stale()).toBe(true)
    clock.advance(50)
    // Serialized: the second build waits for the first.
    expect(builds.calls).toHaveLength(1)
    first.finish('built from the old a.md')
    await flush()
    expect(discarded).toEqual([['a.md']])
    expect(builds.calls).toHaveLength(2)
    const second = builds.calls[1]!
    // The second build covers the discarded build's change too.
    expect(second.context.changes).toEqual(['a.md', 'b.md', 'c.md'])
    expect(second.context.stale()).toBe(false)
    second.finish('built from everything')
    await loop.settled()
    expect(results).toEqual([['built from everything', ['a.md', 'b.md', 'c.md']]])
    expect(builds.calls).toHaveLength(2)
  })

  it('gives a change that came after the timer fired its quiet time before the next build', async () => {
    const { clock, builds, loop } = setup()
    loop.change('a.md')
    clock.advance(50)
    loop.change('b.md')
    clock.advance(50) // fires while the first build runs
    loop.change('c.md') // comes later: its settle time has not passed
    builds.calls[0]!.finish('stale')
    await flush()
    expect(builds.calls).toHaveLength(1)
    clock.advance(50)
    expect(builds.calls).toHaveLength(2)
    expect(builds.calls[1]!.context.changes).toEqual(['a.md', 'b.md', 'c.md'])
  })

  it('never runs two builds at once, however changes and builds interleave', async () => {
    const clock = manualClock()
    const builds = controlledBuilds<void>()
    let running = 0
    let most = 0
    const delivered: string[][] = []
    const loop = new RebuildLoop<void>({
      settleMs: 5,
      timers: clock,
      build: async (context) => {
        running++
        most = Math.max(most, running)
        await builds.build(context)
        running--
      },
      onResult: (_, context) => delivered.push([...context.changes]),
    })
    for (let round = 0; round < 20; round++) {
      loop.change(`r${round}.md`)
      clock.advance(round % 3 === 0 ? 5 : 1)
      if (round % 4 === 3)
        builds.calls.at(-1)?.finish()
      await flush()
    }
    // Ends each build as it comes, until the loop has built everything.
    for (let settled = false; !settled;) {
      void loop.settled().then(() => (settled = true))
      clock.advance(5)
      builds.calls.at(-1)?.finish()
      await flush()
    }
    expect(most).toBe(1)
    expect(builds.calls.length).toBeGreaterThan(2)
    // Only the last build saw no change while it ran, and it covers every change not delivered before.
    expect(delivered.flat().sort()).toEqual(Array.from({ length: 20 }, (_, i) => `r${i}.md`).sort())
  })

  it('delivers failures: a thrown error to onError, a failed outcome to onResult', async () => {
    const { clock, builds, results, errors, loop } = setup()
    loop.change('broken.md')
    clock.advance(50)
    const error = new Error('broken.md:3:1 invalid YAML')
    builds.calls[0]!.fail(error)
    await loop.settled()
    expect(errors).toEqual([[error, ['broken.md']]])
    loop.change('broken.md')
    clock.advance(50)
    builds.calls[1]!.finish('failed: 1 error')
    await loop.settled()
    expect(results).toEqual([['failed: 1 error', ['broken.md']]])
  })

  it('does not deliver the failure of a stale build either', async () => {
    const { clock, builds, errors, discarded, loop } = setup()
    loop.change('a.md')
    clock.advance(50)
    loop.change('a.md')
    builds.calls[0]!.fail(new Error('half-saved a.md'))
    await flush()
    expect(errors).toEqual([])
    expect(discarded).toEqual([['a.md']])
  })

  it('keeps running when onResult throws, and reports it to onError', async () => {
    const clock = manualClock()
    const errors: unknown[] = []
    const loop = new RebuildLoop<number>({
      timers: clock,
      build: () => 1,
      onResult: () => {
        throw new Error('listener failed')
      },
      onError: error => errors.push((error as Error).message),
    })
    loop.change('a.md')
    clock.advance(50)
    await loop.settled()
    loop.change('b.md')
    clock.advance(50)
    await loop.settled()
    expect(errors).toEqual(['listener failed', 'listener failed'])
  })

  it('settled() resolves at once when idle, and after the pending build otherwise', async () => {
    const { clock, builds, loop } = setup()
    await loop.settled()
    loop.change('a.md')
    let settled = false
    void loop.settled().then(() => (settled = true))
    clock.advance(50)
    await flush()
    expect(settled).toBe(false)
    builds.calls[0]!.finish('done')
    await flush()
    expect(settled).toBe(true)
  })

  it('flush() builds what is pending without waiting', async () => {
    const { builds, loop } = setup()
    loop.flush()
    expect(builds.calls).toHaveLength(0)
    loop.change('a.md')
    loop.flush()
    expect(builds.calls.map(c => c.context.changes)).toEqual([['a.md']])
  })

  it('close() drops pending changes, makes the running build stale and builds no more', async () => {
    const { clock, builds, results, discarded, loop } = setup()
    loop.change('a.md')
    clock.advance(50)
    loop.change('b.md')
    let closed = false
    void loop.close().then(() => (closed = true))
    expect(builds.calls[0]!.context.stale()).toBe(true)
    await flush()
    expect(closed).toBe(false)
    builds.calls[0]!.finish('index')
    await flush()
    expect(closed).toBe(true)
    loop.change('c.md')
    clock.advance(5000)
    expect(builds.calls).toHaveLength(1)
    expect(results).toEqual([])
    expect(discarded).toEqual([['a.md']])
    expect(clock.armed()).toBe(0)
    await loop.settled()
  })
})
