import { execFile } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
const fixture = join(repo, 'test/client/fixture')
/** `node_modules/.bin/tsc`, run through node so it works on every platform. */
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')

interface TscResult {
  code: number
  /** `file(line,col): error TSxxxx: message` lines. */
  errors: { file: string, line: number, code: string, text: string }[]
  output: string
}

function runTsc(cwd: string, project: string): Promise<TscResult> {
  return new Promise((done) => {
    execFile(process.execPath, [tsc, '-p', project, '--pretty', 'false'], { cwd }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`
      const errors = [...output.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/gm)]
        .map(m => ({ file: m[1]!, line: Number(m[2]), code: m[3]!, text: m[4]! }))
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, errors, output })
    })
  })
}

/**
 * A throwaway app that installed the package: the fixture files next to a
 * `node_modules/unplugin-skill-kit` link to this repository. TypeScript does not
 * resolve `"types": ["unplugin-skill-kit/client"]` through a package's
 * self-reference, so the fixture cannot be checked in place.
 */
let app: string

beforeAll(() => {
  for (const file of ['dist/runtime.d.mts', 'client.d.ts']) {
    if (!existsSync(join(repo, file)))
      throw new Error(`${file} is missing: run "npm run build" first.`)
  }
  app = mkdtempSync(join(tmpdir(), 'skill-kit-types-'))
  cpSync(fixture, app, { recursive: true })
  mkdirSync(join(app, 'node_modules'))
  symlinkSync(repo, join(app, 'node_modules/unplugin-skill-kit'), 'junction')
  writeFileSync(join(app, 'tsconfig.misuse.json'), JSON.stringify({ extends: './tsconfig.json', files: ['misuse.ts'] }))
})

afterAll(() => {
  if (app)
    rmSync(app, { recursive: true, force: true })
})

describe('unplugin-skill-kit/client', () => {
  it('types every import form of a skill', async () => {
    const result = await runTsc(app, 'tsconfig.json')
    expect(result.output).toBe('')
    expect(result.code).toBe(0)
  })

  it('rejects misuses of those types, on the marked lines only', async () => {
    const expected = readFileSync(join(fixture, 'misuse.ts'), 'utf8').split('\n')
      .flatMap((text, i) => [...text.matchAll(/\/\/ error (TS\d+)/g)].map(m => ({ line: i + 1, code: m[1]! })))
    expect(expected.length).toBeGreaterThan(5)

    const result = await runTsc(app, 'tsconfig.misuse.json')
    expect(result.code).not.toBe(0)
    expect(result.errors.every(e => e.file === 'misuse.ts'), result.output).toBe(true)
    expect(result.errors.map(({ line, code }) => ({ line, code }))).toEqual(expected)
    const coverLine = expected.find(e => e.code === 'TS2322')!.line
    expect(result.errors.find(e => e.line === coverLine)?.text).toBe(`Type 'string' is not assignable to type 'number'.`)
  })

  it('resolves the client types and the runtime through the package name', async () => {
    const ts = (await import('typescript')).default
    const options = { moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext }
    const client = ts.resolveTypeReferenceDirective('unplugin-skill-kit/client', join(app, 'usage.ts'), options, ts.sys)
    expect(client.resolvedTypeReferenceDirective?.resolvedFileName).toBe(join(repo, 'client.d.ts'))
    // Inside the repository, by the package's self-reference (package.json "exports").
    const runtime = ts.resolveModuleName('unplugin-skill-kit/runtime', join(fixture, 'usage.ts'), options, ts.sys)
    expect(runtime.resolvedModule?.resolvedFileName).toBe(join(repo, 'dist/runtime.d.mts'))
  })
})
