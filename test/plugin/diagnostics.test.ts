/**
 * Where each bundler says a problem is: our messages count columns from 1
 * (`file:line:col`, like tsc), a bundler's `loc` from 0 (esbuild in UTF-8
 * bytes); one code frame per message; one error per invalid skill per build,
 * however many of its modules are imported. The plugins come from `dist/`.
 */
import type { Bundler } from '../support/build'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { BUNDLERS } from '../support/build'
import { BROKEN } from '../support/broken-skill'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/diagnostics')

/** An error as the bundler reports it: its text, and where its `loc` (esbuild: `location`) points. */
interface ReportedError {
  message: string
  line: number | undefined
  column: number | undefined
  /** The code frame the bundler shows under the message (Rollup, Rolldown, Vite). */
  frame: string | undefined
  /** The stack Rollup, Rolldown and Vite print under the frame. */
  stack?: string
  /** The line esbuild prints under the location. */
  lineText?: string
}

/** webpack's and rspack's text of an error: what the loader emitted, without their heading and rspack's box. */
function webpackText(message: string): string {
  const lines = message.split('\n').map(line => line.replace(/^ {2}[×│] ?/, '').trimEnd())
  return lines.slice(1).join('\n').trimEnd()
}

/** Builds `entry` of `app` with `bundler`, expecting it to fail; resolves with every error the bundler reports. */
async function buildErrors(bundler: Bundler, app: string, entry: string): Promise<ReportedError[]> {
  const plugin = (await import(pathToFileURL(join(repo, 'dist', `${bundler}.mjs`)).href)).default
  const options = { root: app, offline: true }
  const input = join(app, entry)
  const outDir = join(work, 'out', bundler)
  const fromRollup = (e: { message: string, loc?: { line: number, column: number }, frame?: string, stack?: string }): ReportedError =>
    ({ message: e.message, line: e.loc?.line, column: e.loc?.column, frame: e.frame, stack: e.stack })
  try {
    switch (bundler) {
      case 'rollup': {
        const { rollup } = await import('rollup')
        await rollup({ input, plugins: [plugin(options)], onLog: () => {} })
        break
      }
      case 'rolldown': {
        const { rolldown } = await import('rolldown')
        const bundle = await rolldown({ input, cwd: app, plugins: [plugin(options)], onLog: () => {} })
        try {
          await bundle.generate({})
        }
        finally {
          await bundle.close()
        }
        break
      }
      case 'vite': {
        const { build } = await import('vite')
        await build({ configFile: false, root: app, logLevel: 'silent', plugins: [plugin(options)], build: { write: false, lib: { entry: input, formats: ['es'] } } })
        break
      }
      case 'esbuild': {
        const esbuild = await import('esbuild')
        await esbuild.build({ entryPoints: [input], bundle: true, format: 'esm', write: false, outdir: outDir, logLevel: 'silent', plugins: [plugin(options)] })
        break
      }
      case 'webpack':
      case 'rspack': {
        const config = { mode: 'none' as const, context: app, entry: input, devtool: false as const, cache: false, output: { path: outDir }, plugins: [plugin(options)], infrastructureLogging: { level: 'none' as const } }
        const compiler: any = bundler === 'webpack' ? (await import('webpack')).default(config) : (await import('@rspack/core')).rspack(config)
        const errors = await new Promise<{ message: string }[]>((done, fail) => compiler.run((error: Error | null, stats: any) => {
          compiler.close(() => error ? fail(error) : done([...stats.compilation.errors]))
        }))
        if (errors.length)
          return errors.map(e => ({ message: webpackText(e.message), line: undefined, column: undefined, frame: undefined }))
        break
      }
    }
  }
  catch (error) {
    const failure = error as { message: string, errors?: any[] }
    if (bundler === 'esbuild')
      return failure.errors!.map(e => ({ message: e.text, line: e.location?.line, column: e.location?.column, frame: undefined, lineText: e.location?.lineText }))
    // Rolldown (and Vite with it) throws one error listing every error of the build.
    return failure.errors ? failure.errors.map(fromRollup) : [fromRollup(failure as never)]
  }
  throw new Error(`${bundler} built ${entry} without an error`)
}

const BROKEN_TEXT = `Invalid skill skills/broken/SKILL.md (2 errors). Fix them, or set onInvalid: 'fallback' to load it whole:

skills/broken/SKILL.md:5:19 error always-unknown-id: "progressive.always" names "missing-rules", but no heading has {#missing-rules}. Known IDs: setup.
skills/broken/SKILL.md:14:9 error section-id-missing: Level-2 heading "Usage" has no section ID. Add {#usage} at the end of the heading line.`

const BROKEN_FRAME = `  3 | description: A progressive skill with two mistakes.
  4 | progressive:
> 5 |   always: [setup, missing-rules]
    |                   ^
  6 | ---
  7 | `

/** A heading without its ID: the error is at the end of a line that has a two-byte character. */
const UMLAUT = `---
name: umlaut
description: A progressive skill whose last heading has no ID.
progressive:
  always: [setup]
---

Intro.

## Setup {#setup}

Install.

## Überblick

Text.
`

const UMLAUT_TEXT = `Invalid skill other/umlaut/SKILL.md (1 error). Fix them, or set onInvalid: 'fallback' to load it whole:

other/umlaut/SKILL.md:14:13 error section-id-missing: Level-2 heading "Überblick" has no section ID. Add {#uberblick} at the end of the heading line.`

const UMLAUT_FRAME = `  12 | Install.
  13 | 
> 14 | ## Überblick
     |             ^
  15 | 
  16 | Text.`

const MISSING_TEXT = `Knowledge folder docs cannot be built. Fix its settings:

docs/skill-kit.json:3:16 error knowledge-missing: The knowledge folder guides does not exist. Create it and put Markdown documents in it.`

const MISSING_FRAME = `  1 | {
  2 |   "name": "docs",
> 3 |   "knowledge": "guides"
    |                ^
  4 | }
  5 | `

const app = join(work, 'app')

beforeAll(() => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(join(app, 'skills/broken'), { recursive: true })
  mkdirSync(join(app, 'other/umlaut'), { recursive: true })
  mkdirSync(join(app, 'docs'), { recursive: true })
  writeFileSync(join(app, 'skills/broken/SKILL.md'), BROKEN)
  writeFileSync(join(app, 'other/umlaut/SKILL.md'), UMLAUT)
  writeFileSync(join(app, 'docs/skill-kit.json'), '{\n  "name": "docs",\n  "knowledge": "guides"\n}\n')
  // Every form of the skill, and the registry that lists it: six modules of one invalid skill.
  writeFileSync(join(app, 'forms.js'), [
    'export { default as whole } from \'./skills/broken/SKILL.md\'',
    'export { default as cover } from \'./skills/broken/SKILL.md?cover\'',
    'export { default as sections } from \'./skills/broken/SKILL.md?sections\'',
    'export { default as meta } from \'./skills/broken/SKILL.md?meta\'',
    'export { default as setup } from \'./skills/broken/SKILL.md?section=setup\'',
    'export { default as registry } from \'virtual:skill-kit/skills\'',
    '',
  ].join('\n'))
  writeFileSync(join(app, 'umlaut.js'), 'export { default } from \'./other/umlaut/SKILL.md?cover\'\n')
  writeFileSync(join(app, 'missing.js'), 'export { default } from \'./docs?knowledge\'\n')
})

/** What the bundler shows of an error: its text, and the frame under it where the bundler shows one apart. */
function shown(error: ReportedError): string {
  return error.frame === undefined ? error.message : `${error.message}\n\n${error.frame}`
}

describe.each(BUNDLERS)('diagnostics in %s', (bundler) => {
  /** webpack and rspack get no location from unplugin: their text carries it. */
  const located = bundler !== 'webpack' && bundler !== 'rspack'
  /** The one code frame: apart from the text where the bundler shows `frame`, else at its end. */
  const framed = bundler === 'vite' || bundler === 'rollup' || bundler === 'rolldown'
  /** webpack and rspack trim the ends of lines. */
  const text = (s: string) => located ? s : s.split('\n').map(line => line.trimEnd()).join('\n').trimEnd()

  it('reports an invalid skill imported in six modules once, at its first error, with one code frame', async () => {
    const errors = await buildErrors(bundler, app, 'forms.js')
    expect(errors).toHaveLength(1)
    const [error] = errors as [ReportedError]
    // Rollup prefixes the module it was loading (which of the six comes first is its business).
    expect(shown(error).endsWith(text(`${BROKEN_TEXT}\n\n${BROKEN_FRAME}`))).toBe(true)
    expect(error.frame).toBe(framed ? BROKEN_FRAME : undefined)
    expect([error.line, error.column]).toEqual(located ? [5, 18] : [undefined, undefined])
    // The plugin's own stack frames would only bury the message.
    expect(error.stack).toBe(framed ? '' : undefined)
  })

  it.runIf(!located)('writes modules of the invalid skill that throw, never empty ones', async () => {
    // webpack and rspack write the output of a build with errors (mode "none").
    await buildErrors(bundler, app, 'forms.js')
    await expect(import(/* @vite-ignore */ `${join(work, 'out', bundler, 'main.js')}?t=${Date.now()}`)).rejects.toThrow('unplugin-skill-kit could not build this module: see the build\'s errors.')
  })

  it('points at the end of a line in 0-based characters (esbuild: UTF-8 bytes)', async () => {
    const errors = await buildErrors(bundler, app, 'umlaut.js')
    expect(errors).toHaveLength(1)
    const [error] = errors as [ReportedError]
    expect(shown(error).endsWith(text(`${UMLAUT_TEXT}\n\n${UMLAUT_FRAME}`))).toBe(true)
    expect([error.line, error.column]).toEqual(!located ? [undefined, undefined] : bundler === 'esbuild' ? [14, 13] : [14, 12])
    expect(error.lineText).toBe(bundler === 'esbuild' ? '## Überblick' : undefined)
  })

  it('points a missing knowledge folder at the "knowledge" key of skill-kit.json', async () => {
    const errors = await buildErrors(bundler, app, 'missing.js')
    expect(errors).toHaveLength(1)
    const [error] = errors as [ReportedError]
    expect(shown(error).endsWith(text(`${MISSING_TEXT}\n\n${MISSING_FRAME}`))).toBe(true)
    expect([error.line, error.column]).toEqual(located ? [3, 15] : [undefined, undefined])
    expect(error.lineText).toBe(bundler === 'esbuild' ? '  "knowledge": "guides"' : undefined)
  })
})
