// Conditional activation with many dormant skills: the compiled engine
// (createActivation from the built runtime) against a naive per-skill loop with
// the same semantics, in the same process.
//
//   node bench/activation.bench.mjs [--skills 1000] [--messages 10000] [--paths 10000] [--sample 1000] [--rounds 5] [--json]
//
// Corpus (seeded, deterministic): 1,000 dormant skills, each with 5 topics
// (about a fifth are two-word phrases that start with an everyday word, so
// the index has candidates to verify) and 3 path globs (`*.<ext>`,
// `<dir>/**`, `src/<dir>/**/*.ts` or `**/<dir>/*.<ext>`); 10,000 messages of
// about 30 everyday words with punctuation and case changes; 10,000 paths of
// an ordinary TypeScript repository, absolute or relative. About 0.3 % of the
// messages and paths carry a trigger, so only a few skills ever activate.
//
// Measured, each round on a fresh activation (every skill dormant again):
//   ours    createActivation(skills, { cwd }) once, then observeMessage on every
//           message and observePaths([path]) on every path
//   naive   a per-skill loop: for each dormant skill, each topic's regex
//           (built once, same boundaries and flags) tested on the message; one
//           `ignore()` per skill (built once) asked about the relative path.
//           Too slow to run on everything: it runs on the first --sample
//           messages and paths, and is compared per message / per path.
// Both activate the same skills on the sample (checked).

import ignore from 'ignore'
import { createRng } from './corpus.mjs'
import { emitResult, fmtMs, importDist, isMain, median, numberArg } from './util.mjs'

export const ACTIVATION_RATIO_GOAL = 10
export const ACTIVATION_MESSAGE_US_GOAL = 50

const SEED = 530
const CWD = '/home/dev/repo'

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'vo', 'zi', 'pe', 'sa', 'do', 'gu', 'be', 'fi', 'ho', 'ju', 'qua', 'xe', 'tri', 'sto', 'pra', 'len', 'mor', 'dex']

function pseudoWords(rng, n, minSyl, maxSyl, taken = new Set()) {
  const out = []
  while (out.length < n) {
    let w = ''
    const syl = rng.int(minSyl, maxSyl)
    for (let i = 0; i < syl; i++) w += rng.pick(SYLLABLES)
    if (!taken.has(w)) {
      taken.add(w)
      out.push(w)
    }
  }
  return out
}

const EVERYDAY = ('the a to of and in is it for that on with this be as are can you we i not but at or from my have what should how please'
  + ' check fix add update review test run build file function page user error issue change code make need look again why when').split(' ')
const COMMON_DIRS = ['src', 'lib', 'components', 'utils', 'hooks', 'pages', 'app', 'api', 'services', 'store', 'styles', 'test', 'tests', '__tests__', 'packages', 'core', 'ui', 'shared', 'types', 'config', 'scripts', 'public', 'assets', 'docs']
const COMMON_EXTS = ['ts', 'tsx', 'js', 'jsx', 'json', 'md', 'css', 'scss', 'html', 'yml', 'svg', 'png', 'mjs', 'd.ts', 'test.ts', 'spec.tsx']
const SPECIAL_EXTS = ['sql', 'prisma', 'graphql', 'proto', 'tf', 'hcl', 'sol', 'ipynb', 'rego', 'cue', 'nix', 'zig', 'dart', 'kt', 'swift', 'vue', 'svelte', 'astro', 'mdx', 'toml']

export function generateActivationCorpus({ skills: skillCount = 1000, messages: messageCount = 10000, paths: pathCount = 10000, seed = SEED } = {}) {
  const rng = createRng(seed)
  const taken = new Set()
  const common = [...EVERYDAY, ...pseudoWords(rng, 1500, 1, 3, taken)]
  const domain = pseudoWords(rng, 6000, 2, 4, taken)
  const dirs = pseudoWords(rng, 3000, 2, 3, taken)
  const exts = [...SPECIAL_EXTS, ...pseudoWords(rng, 1500, 2, 3, taken)]

  const skills = []
  for (let i = 0; i < skillCount; i++) {
    const topics = []
    while (topics.length < 5) {
      const topic = rng.chance(0.2) ? `${rng.pick(common)} ${rng.pick(domain)}` : rng.pick(domain)
      if (!topics.includes(topic))
        topics.push(topic)
    }
    const dir = rng.pick(dirs)
    const third = rng.chance(0.5) ? `src/${rng.pick(dirs)}/**/*.ts` : `**/${rng.pick(dirs)}/*.${rng.pick(COMMON_EXTS)}`
    skills.push({
      name: `skill-${i}`,
      description: `Use when working with ${topics.slice(0, 2).join(' and ')}; covers ${dir} conventions and ${rng.pick(exts)} files.`,
      triggers: { paths: [`*.${rng.pick(exts)}`, `${dir}/**`, third], topics, projects: [], alwaysActive: false },
    })
  }

  const punct = ['', '', '', '', '', ',', '.', '?', '!', ':']
  const messages = []
  for (let m = 0; m < messageCount; m++) {
    const words = []
    const length = rng.int(24, 36)
    for (let w = 0; w < length; w++) {
      let word = rng.chance(0.5) ? rng.pick(EVERYDAY) : rng.pick(common)
      if (rng.chance(0.05))
        word = word[0].toUpperCase() + word.slice(1)
      words.push(word + rng.pick(punct))
    }
    if (rng.chance(0.003))
      words.splice(rng.int(0, words.length), 0, rng.pick(rng.pick(skills).triggers.topics).toUpperCase())
    messages.push(words.join(' '))
  }

  const paths = []
  for (let p = 0; p < pathCount; p++) {
    const depth = rng.int(1, 5)
    const segs = []
    for (let d = 0; d < depth; d++) segs.push(rng.pick(COMMON_DIRS))
    let file = `${rng.pick(common)}${rng.chance(0.5) ? `-${rng.pick(common)}` : ''}.${rng.pick(COMMON_EXTS)}`
    if (rng.chance(0.003)) {
      const [ext, dir] = rng.pick(skills).triggers.paths
      if (rng.chance(0.5))
        file = `${file.split('.')[0]}${ext.slice(1)}`
      else segs.unshift(dir.slice(0, -3))
    }
    const rel = [...segs, file].join('/')
    paths.push(rng.chance(0.5) ? `${CWD}/${rel}` : rel)
  }
  return { skills, messages, paths }
}

const WORD = /^[\p{L}\p{N}\p{M}_]$/u

/** The code point of `text` that ends at `index`, or '' at the start. */
function charBefore(text, index) {
  if (index === 0)
    return ''
  const low = text.charCodeAt(index - 1)
  return low >= 0xDC00 && low <= 0xDFFF && index >= 2 ? text.slice(index - 2, index) : text[index - 1]
}

/**
 * The obvious implementation, with the same semantics: a loop over dormant
 * skills per observation, one regex per topic (flags `giu`, boundaries checked
 * on the characters around each match, since a regex with `\p{…}` classes
 * costs 0.7 ms to compile), one `ignore()` per skill. Built once: `reset()`
 * makes every skill dormant again, so compiled regexes stay warm.
 */
function createNaive(skills, cwd) {
  const topicMatcher = (topic) => {
    const t = topic.trim()
    const chars = [...t]
    const before = WORD.test(chars[0])
    const after = WORD.test(chars.at(-1))
    const body = t.split(/(\s+)/u).map(part => /^\s/u.test(part) ? '\\s+' : part.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&')).join('')
    const regex = new RegExp(body, 'giu')
    return (text) => {
      regex.lastIndex = 0
      let m
      // eslint-disable-next-line no-cond-assign
      while ((m = regex.exec(text))) {
        const end = m.index + m[0].length
        if ((!before || !WORD.test(charBefore(text, m.index))) && (!after || !WORD.test(String.fromCodePoint(text.codePointAt(end) ?? 32))))
          return true
        regex.lastIndex = m.index + 1
      }
      return false
    }
  }
  let on
  const topics = skills.map(s => (s.triggers?.topics ?? []).map(topicMatcher))
  const matchers = skills.map(s => ignore().add(s.triggers?.paths ?? []))
  const prefix = `${cwd}/`
  const naive = {
    reset() {
      on = skills.map(s => !s.triggers || s.triggers.alwaysActive)
      return naive
    },
    observeMessage(text) {
      const out = []
      for (let i = 0; i < skills.length; i++) {
        if (on[i])
          continue
        for (const test of topics[i]) {
          if (test(text)) {
            on[i] = true
            out.push(skills[i])
            break
          }
        }
      }
      return out
    },
    observePaths(paths) {
      const out = []
      for (let i = 0; i < skills.length; i++) {
        if (on[i])
          continue
        for (const path of paths) {
          const rel = path.startsWith(prefix) ? path.slice(prefix.length) : path.startsWith('/') ? undefined : path
          if (rel !== undefined && matchers[i].ignores(rel)) {
            on[i] = true
            out.push(skills[i])
            break
          }
        }
      }
      return out
    },
  }
  return naive.reset()
}

export async function runActivationBench({ skills: skillCount = 1000, messages: messageCount = 10000, paths: pathCount = 10000, sample = 1000, rounds = 5, warmup = 1, log = console.log } = {}) {
  const { createActivation } = await importDist('runtime.mjs')
  const { skills, messages, paths } = generateActivationCorpus({ skills: skillCount, messages: messageCount, paths: pathCount })
  const sampleMessages = messages.slice(0, sample)
  const samplePaths = paths.slice(0, sample)
  const quiet = { log: () => {}, cwd: CWD }

  const naive = createNaive(skills, CWD)
  // Same activations on the sample, in the same order (this also warms the naive loop's regexes).
  {
    naive.reset()
    const ours = createActivation(skills, quiet)
    const a = [...sampleMessages.flatMap(m => ours.observeMessage(m).map(x => x.skill.name)), ...samplePaths.flatMap(p => ours.observePaths([p]).map(x => x.skill.name))]
    const b = [...sampleMessages.flatMap(m => naive.observeMessage(m).map(s => s.name)), ...samplePaths.flatMap(p => naive.observePaths([p]).map(s => s.name))]
    if (JSON.stringify(a) !== JSON.stringify(b))
      throw new Error(`the engines disagree on the sample:\n  ours  ${a.join(' ')}\n  naive ${b.join(' ')}`)
  }

  const times = { create: [], messages: [], paths: [], naiveMessages: [], naivePaths: [] }
  const perMessage = []
  let activated = 0
  let naiveActivated = 0
  let sink = 0
  for (let round = 0; round < warmup + rounds; round++) {
    const keep = round >= warmup
    const push = (key, ms) => keep && times[key].push(ms)
    globalThis.gc?.()
    let start = performance.now()
    const ours = createActivation(skills, quiet)
    push('create', performance.now() - start)

    // Alternate which engine runs first.
    const runOurs = () => {
      let n = 0
      let t = performance.now()
      if (round === warmup + rounds - 1) {
        // Last round: time every message on its own, for the distribution.
        for (const message of messages) {
          const s = performance.now()
          n += ours.observeMessage(message).length
          perMessage.push((performance.now() - s) * 1000)
        }
      }
      else {
        for (const message of messages)
          n += ours.observeMessage(message).length
      }
      push('messages', performance.now() - t)
      t = performance.now()
      for (const path of paths)
        n += ours.observePaths([path]).length
      push('paths', performance.now() - t)
      if (keep)
        activated = n
    }
    const runNaive = () => {
      naive.reset()
      let n = 0
      let t = performance.now()
      for (const message of sampleMessages)
        n += naive.observeMessage(message).length
      push('naiveMessages', performance.now() - t)
      t = performance.now()
      for (const path of samplePaths)
        n += naive.observePaths([path]).length
      push('naivePaths', performance.now() - t)
      if (keep)
        naiveActivated = n
    }
    if (round % 2) {
      runNaive()
      globalThis.gc?.()
      runOurs()
    }
    else {
      runOurs()
      globalThis.gc?.()
      runNaive()
    }
    sink += ours.active.length
  }
  if (sink < 0)
    throw new Error('unreachable')

  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]))
  const us = {
    message: (m.messages * 1000) / messages.length,
    path: (m.paths * 1000) / paths.length,
    naiveMessage: (m.naiveMessages * 1000) / sampleMessages.length,
    naivePath: (m.naivePaths * 1000) / samplePaths.length,
  }
  const sorted = [...perMessage].sort((a, b) => a - b)
  const result = {
    skills: skillCount,
    messages: messages.length,
    paths: paths.length,
    sample,
    rounds,
    activated,
    naiveActivated,
    medianMs: m,
    us,
    medianMessageUs: median(perMessage),
    p99MessageUs: sorted[Math.floor(sorted.length * 0.99)],
    ratio: { messages: us.naiveMessage / us.message, paths: us.naivePath / us.path },
    goal: { ratio: ACTIVATION_RATIO_GOAL, messageUs: ACTIVATION_MESSAGE_US_GOAL },
  }

  log(`corpus: ${skillCount} dormant skills (5 topics, 3 globs each), ${messages.length} messages (~30 words), ${paths.length} paths; ${activated} activations per round`)
  log(`\nconditional activation, median of ${rounds} rounds${globalThis.gc ? ' (GC before each)' : ''}, a fresh activation per round:`)
  log(`  createActivation (compile triggers)   ${fmtMs(m.create).padStart(9)}`)
  log(`  observeMessage × ${messages.length}            ${fmtMs(m.messages).padStart(9)}   ${us.message.toFixed(2).padStart(7)} µs/message (median of single calls ${result.medianMessageUs.toFixed(2)} µs, p99 ${result.p99MessageUs.toFixed(2)} µs)`)
  log(`  naive loop × ${sample} messages           ${fmtMs(m.naiveMessages).padStart(9)}   ${us.naiveMessage.toFixed(2).padStart(7)} µs/message`)
  log(`  observePaths × ${paths.length}              ${fmtMs(m.paths).padStart(9)}   ${us.path.toFixed(2).padStart(7)} µs/path`)
  log(`  naive loop × ${sample} paths              ${fmtMs(m.naivePaths).padStart(9)}   ${us.naivePath.toFixed(2).padStart(7)} µs/path`)
  const ok = r => (r >= ACTIVATION_RATIO_GOAL ? 'OK' : 'MISSED')
  log(`  ratio naive / ours, messages  ${result.ratio.messages.toFixed(0).padStart(6)}×  (goal ≥ ${ACTIVATION_RATIO_GOAL}×) ${ok(result.ratio.messages)}`)
  log(`  ratio naive / ours, paths     ${result.ratio.paths.toFixed(0).padStart(6)}×  (goal ≥ ${ACTIVATION_RATIO_GOAL}×) ${ok(result.ratio.paths)}`)
  log(`  median µs per message         ${result.medianMessageUs.toFixed(2).padStart(7)}  (goal < ${ACTIVATION_MESSAGE_US_GOAL}) ${result.medianMessageUs < ACTIVATION_MESSAGE_US_GOAL ? 'OK' : 'MISSED'}`)
  return result
}

if (isMain(import.meta)) {
  const result = await runActivationBench({
    skills: numberArg('skills', 1000),
    messages: numberArg('messages', 10000),
    paths: numberArg('paths', 10000),
    sample: numberArg('sample', 1000),
    rounds: numberArg('rounds', 5),
  })
  emitResult(result)
}
