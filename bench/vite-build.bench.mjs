// `vite.build` of an app importing 200 generated skills with `?cover` (compiled
// by our plugin) against the same app importing them with `?raw` (Vite's raw
// loader; our plugin is installed too and passes them through). Builds alternate,
// a warm-up of each first, then the median wall time of each.
//
//   node bench/vite-build.bench.mjs [--count 200] [--rounds 7] [--json] [--only cover|raw]
//
// `--only cover` builds one variant (for profiling: node --cpu-prof ... --only cover).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { assertCompiles, corpusStats, DEFAULT_SEED, writeSkills } from './corpus.mjs'
import { arg, emitResult, fmtMs, importDist, isMain, median, numberArg } from './util.mjs'

export const VITE_GOAL = 1.0

/**
 * Wraps the plugin's resolveId and load hooks to add the time spent inside them
 * to `spent`. A hook that returns synchronously is timed without awaiting, so
 * the figure is our own work, not time queued behind the bundler's other tasks.
 */
function timed(plugin, spent) {
  for (const hook of ['resolveId', 'load']) {
    const value = plugin[hook]
    if (!value)
      continue
    const original = typeof value === 'function' ? value : value.handler
    const handler = function (...args) {
      const start = performance.now()
      const result = original.apply(this, args)
      if (!result || typeof result.then !== 'function') {
        spent[hook] += performance.now() - start
        return result
      }
      return result.finally(() => {
        spent[hook] += performance.now() - start
      })
    }
    plugin[hook] = typeof value === 'function' ? handler : { ...value, handler }
  }
  return plugin
}

function entry(skills, query) {
  const imports = skills.map((s, i) => `import s${i} from './skills/${s.name}/SKILL.md?${query}'`)
  return `${imports.join('\n')}\n\nexport default {\n${skills.map((s, i) => `  ${JSON.stringify(s.name)}: s${i},`).join('\n')}\n}\n`
}

export async function runViteBench({ count = 200, rounds = 7, warmup = 2, only, seed = DEFAULT_SEED, log = console.log } = {}) {
  const { build } = await import('vite')
  const { version } = await import('vite/package.json', { with: { type: 'json' } }).then(m => m.default)
  const { default: skillKit } = await importDist('vite.mjs')
  const { compileSkill } = await importDist('index.mjs')

  const app = mkdtempSync(join(tmpdir(), 'skill-kit-vite-'))
  try {
    const skills = writeSkills(join(app, 'skills'), count, seed)
    const stats = corpusStats(skills)
    assertCompiles(compileSkill, skills)
    writeFileSync(join(app, 'cover.js'), entry(skills, 'cover'))
    writeFileSync(join(app, 'raw.js'), entry(skills, 'raw'))
    log(`app: ${count} skills (${stats.progressive} progressive), lines median ${stats.median}, max ${stats.max}; ${(stats.bytes / 1e6).toFixed(1)} MB of SKILL.md; vite ${version}`)

    const variants = only ? [only] : ['cover', 'raw']
    const times = { cover: [], raw: [] }
    const hookMs = { cover: [], raw: [] }
    const outputBytes = {}
    const runBuild = async (kind) => {
      const spent = { resolveId: 0, load: 0 }
      const start = performance.now()
      await build({
        root: app,
        configFile: false,
        envFile: false,
        logLevel: 'silent',
        // A fresh plugin (and so a fresh SkillLoader cache) for every build.
        plugins: [timed(skillKit(), spent)],
        build: {
          outDir: `out-${kind}`,
          emptyOutDir: true,
          reportCompressedSize: false,
          lib: { entry: join(app, `${kind}.js`), formats: ['es'], fileName: () => `${kind}.js` },
        },
      })
      const ms = performance.now() - start
      outputBytes[kind] = readFileSync(join(app, `out-${kind}`, `${kind}.js`)).length
      return { ms, hooks: spent }
    }

    for (let round = 0; round < warmup + rounds; round++) {
      const order = round % 2 === 0 ? variants : [...variants].reverse()
      for (const kind of order) {
        globalThis.gc?.()
        const { ms, hooks } = await runBuild(kind)
        if (round >= warmup) {
          times[kind].push(ms)
          hookMs[kind].push(hooks)
        }
      }
    }

    // The cover build must really contain compiled covers, the raw build the sources.
    if (variants.includes('cover') && !readFileSync(join(app, 'out-cover', 'cover.js'), 'utf8').includes('This skill is progressive'))
      throw new Error('The ?cover build holds no progressive cover: the plugin did not run.')
    if (variants.includes('raw') && !readFileSync(join(app, 'out-raw', 'raw.js'), 'utf8').includes('progressive:'))
      throw new Error('The ?raw build holds no skill source.')

    if (only) {
      log(`${only}: median ${fmtMs(median(times[only]))} [${times[only].map(t => t.toFixed(0)).join(', ')}]`)
      return { only, medianMs: median(times[only]) }
    }
    const m = { cover: median(times.cover), raw: median(times.raw) }
    const hookMedian = kind => ({ resolveId: median(hookMs[kind].map(h => h.resolveId)), load: median(hookMs[kind].map(h => h.load)) })
    const hooks = { cover: hookMedian('cover'), raw: hookMedian('raw') }
    const result = {
      count,
      rounds,
      vite: version,
      corpus: stats,
      medianMs: m,
      samplesMs: times,
      pluginHookMs: hooks,
      outputBytes,
      ratio: m.cover / m.raw,
      goal: VITE_GOAL,
    }
    log(`\nvite.build, ${count} skills, median of ${rounds} rounds after ${warmup} warm-up (alternating):`)
    log(`  ?cover   ${fmtMs(m.cover).padStart(9)}   [${times.cover.map(t => t.toFixed(0)).join(', ')}]   output ${(outputBytes.cover / 1e6).toFixed(2)} MB, our hooks: load ${fmtMs(hooks.cover.load)}, resolveId ${fmtMs(hooks.cover.resolveId)} (async, wall)`)
    log(`  ?raw     ${fmtMs(m.raw).padStart(9)}   [${times.raw.map(t => t.toFixed(0)).join(', ')}]   output ${(outputBytes.raw / 1e6).toFixed(2)} MB, our hooks: load ${fmtMs(hooks.raw.load)}, resolveId ${fmtMs(hooks.raw.resolveId)} (async, wall)`)
    log(`  ratio cover / raw   ${result.ratio.toFixed(2)}  (goal ≤ ${VITE_GOAL}) ${result.ratio <= VITE_GOAL ? 'OK' : 'MISSED'}`)
    return result
  }
  finally {
    rmSync(app, { recursive: true, force: true })
  }
}

if (isMain(import.meta)) {
  const result = await runViteBench({ count: numberArg('count', 200), rounds: numberArg('rounds', 7), only: arg('only', undefined) })
  emitResult(result)
}
