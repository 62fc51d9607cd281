// Profiling aid, not part of `npm run bench`: times each phase of compileSkill
// and of SkillLoader.load by calling the functions of `src/` directly (bundled
// on the fly with esbuild), over the generated corpus.
//
//   node --expose-gc bench/phases.mjs [--count 1000] [--rounds 7]

import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { DEFAULT_SEED, generateSkills, writeSkills } from './corpus.mjs'
import { median, numberArg } from './util.mjs'

const count = numberArg('count', 1000)
const rounds = numberArg('rounds', 7)
const src = new URL('../src/', import.meta.url).pathname
const tmp = mkdtempSync(join(tmpdir(), 'skill-kit-phases-'))

try {
  const entry = [
    `export { normalizeNewlines, splitFrontmatter } from ${JSON.stringify(`${src}core/frontmatter.ts`)}`,
    `export { parseYaml, isYamlMapping } from ${JSON.stringify(`${src}core/yaml.ts`)}`,
    `export { DiagnosticBag } from ${JSON.stringify(`${src}core/diagnostics.ts`)}`,
    `export { scanHeadings } from ${JSON.stringify(`${src}core/markdown.ts`)}`,
    `export { hash } from ${JSON.stringify(`${src}core/hash.ts`)}`,
    `export { validateSpec } from ${JSON.stringify(`${src}skill/spec.ts`)}`,
    `export { resolveResources } from ${JSON.stringify(`${src}skill/resources.ts`)}`,
    `export { readProgressive, checkAlwaysIds } from ${JSON.stringify(`${src}skill/progressive.ts`)}`,
    `export { layoutSections, trimBlankText } from ${JSON.stringify(`${src}skill/sections.ts`)}`,
    `export { renderCover } from ${JSON.stringify(`${src}skill/cover.ts`)}`,
    `export { compileSkill, expectedSkillName } from ${JSON.stringify(`${src}skill/compile.ts`)}`,
    `export { SkillLoader } from ${JSON.stringify(`${src}skill/load.ts`)}`,
    `export { parseDocument, LineCounter } from 'yaml'`,
  ].join('\n')
  const out = join(tmp, 'src.mjs')
  await build({ stdin: { contents: entry, resolveDir: src, loader: 'ts' }, bundle: true, format: 'esm', platform: 'node', outfile: out, logLevel: 'error',
    // CommonJS parts of dependencies (yaml) call require('process'): give the bundle a real require.
    banner: { js: `import { createRequire as __cr } from 'node:module'; const require = __cr(${JSON.stringify(import.meta.url)});` } })
  const S = await import(pathToFileURL(out).href)

  const skills = generateSkills(count, DEFAULT_SEED)
  const folder = { files: [], kind: () => 'missing' }
  const inputs = skills.map(s => ({ file: `/bench/skills/${s.name}/SKILL.md`, source: s.source, folder }))
  const written = writeSkills(join(tmp, 'skills'), count, DEFAULT_SEED)

  // Precomputed intermediate values, so each phase is timed alone.
  const pre = inputs.map((input) => {
    const source = S.normalizeNewlines(input.source)
    const split = S.splitFrontmatter(source)
    const bag = new S.DiagnosticBag(input.file)
    const doc = S.parseYaml(split.yaml, split.yamlLine, bag)
    const always = S.readProgressive(doc.value, doc, bag, source)
    const progressive = always !== undefined
    const layout = progressive ? S.layoutSections(split.body, split.bodyLine, bag) : undefined
    return { input, source, split, doc, progressive, layout, always }
  })
  const prog = pre.filter(p => p.progressive)

  const phases = {
    'compileSkill (whole)': () => { for (const i of inputs) S.compileSkill(i) },
    'normalizeNewlines': () => { for (const p of pre) S.normalizeNewlines(p.input.source) },
    'splitFrontmatter': () => { for (const p of pre) S.splitFrontmatter(p.source) },
    'parseYaml (ours, all)': () => { for (const p of pre) S.parseYaml(p.split.yaml, p.split.yamlLine, new S.DiagnosticBag(p.input.file)) },
    '  yaml.parseDocument + LineCounter': () => { for (const p of pre) S.parseDocument(p.split.yaml, { lineCounter: new S.LineCounter(), prettyErrors: false, uniqueKeys: true }) },
    'validateSpec': () => {
      for (const p of pre) {
        S.validateSpec({ frontmatter: p.doc.value, doc: p.doc, bag: new S.DiagnosticBag(p.input.file), expectedName: p.input.file.split('/').at(-2), expectedFrom: 'folder', strict: false })
      }
    },
    'resolveResources': () => { for (const p of pre) S.resolveResources(p.doc.value.resources, undefined, folder, p.doc, new S.DiagnosticBag(p.input.file)) },
    'readProgressive (progressive only)': () => { for (const p of prog) S.readProgressive(p.doc.value, p.doc, new S.DiagnosticBag(p.input.file), p.source) },
    'layoutSections (progressive only)': () => { for (const p of prog) S.layoutSections(p.split.body, p.split.bodyLine, new S.DiagnosticBag(p.input.file)) },
    '  scanHeadings (progressive only)': () => { for (const p of prog) S.scanHeadings(p.split.body.split('\n')) },
    'checkAlwaysIds (progressive only)': () => { for (const p of prog) S.checkAlwaysIds(p.always, p.layout.sections.map(s => s.id), new S.DiagnosticBag(p.input.file)) },
    'renderCover (progressive only)': () => { for (const p of prog) S.renderCover({ preamble: p.layout.preamble, resources: [], always: p.always.map(a => a.id), sections: p.layout.sections }) },
    'trimBlankText (regular cover, all)': () => { for (const p of pre) S.trimBlankText(p.split.body) },
    'SkillLoader.load (fresh loader, all)': () => { const l = new S.SkillLoader(); for (const w of written) l.load(w.file) },
    '  readFileSync': () => { for (const w of written) readFileSync(w.file, 'utf8') },
    '  readdirSync (withFileTypes)': () => { for (const w of written) readdirSync(join(w.file, '..'), { withFileTypes: true }) },
    '  lstatSync': () => { for (const w of written) lstatSync(w.file) },
    '  hash(source)': () => { for (const p of pre) S.hash(p.source) },
  }

  const times = Object.fromEntries(Object.keys(phases).map(k => [k, []]))
  for (let round = 0; round < rounds + 2; round++) {
    for (const [name, fn] of Object.entries(phases)) {
      globalThis.gc?.()
      const start = performance.now()
      fn()
      if (round >= 2)
        times[name].push(performance.now() - start)
    }
  }
  console.log(`${count} skills (${prog.length} progressive), median of ${rounds} rounds, total ms and µs per skill in the set timed:`)
  for (const [name, list] of Object.entries(times)) {
    const ms = median(list)
    const n = name.includes('progressive only') ? prog.length : count
    console.log(`  ${name.padEnd(40)} ${ms.toFixed(1).padStart(8)} ms ${((ms * 1000) / n).toFixed(1).padStart(8)} µs`)
  }
}
finally {
  rmSync(tmp, { recursive: true, force: true })
}
