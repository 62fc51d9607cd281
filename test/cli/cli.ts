// Runs the `skill-kit` command as users do (a separate Node process through
// bin/skill-kit.mjs), but on the current sources: bin's import of
// dist/cli.mjs is redirected to src/cli/index.ts and bundled with esbuild, so
// the tests never depend on a stale or half-rebuilt dist/.

import { execFile } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { build } from 'esbuild'

const repo = resolve(import.meta.dirname, '../..')

/** What a run printed and how it exited. */
export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** Bundles bin/skill-kit.mjs with the CLI sources into `dir` (one folder per test file: they run in parallel); returns the script. */
export async function bundleCli(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true })
  const outfile = join(dir, 'skill-kit.mjs')
  await build({
    entryPoints: [join(repo, 'bin/skill-kit.mjs')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Dependencies load from the repository's node_modules, as from an installed package's.
    packages: 'external',
    logLevel: 'error',
    plugins: [{
      name: 'cli-sources',
      setup(b) {
        b.onResolve({ filter: /\/dist\/cli\.mjs$/ }, () => ({ path: join(repo, 'src/cli/index.ts') }))
      },
    }],
  })
  return outfile
}

/** Runs `node …nodeArgs <script> …args` in `cwd`; resolves with the exit code, whatever it is. */
export function runCli(script: string, cwd: string, args: readonly string[], nodeArgs: readonly string[] = []): Promise<CliRun> {
  return new Promise((done) => {
    execFile(process.execPath, [...nodeArgs, script, ...args], { cwd }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr })
    })
  })
}
