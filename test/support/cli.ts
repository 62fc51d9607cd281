// Runs the `skill-kit` command as users do (a separate Node process through
// bin/skill-kit.mjs), on the current sources (bundle-cli.mjs).

import { execFile } from 'node:child_process'

export { bundleCli } from './bundle-cli.mjs'

/** What a run printed and how it exited. */
export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** Runs `node …nodeArgs <script> …args` in `cwd` (with this process's environment plus `env`); resolves with the exit code, whatever it is. */
export function runCli(script: string, cwd: string, args: readonly string[], nodeArgs: readonly string[] = [], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((done) => {
    execFile(process.execPath, [...nodeArgs, script, ...args], { cwd, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr })
    })
  })
}
