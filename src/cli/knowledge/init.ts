import type { Command } from '../command'
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { defaultProjectConfig } from '../../knowledge/config'
import { PROJECT_FILE } from '../../knowledge/project'
import { CliError, json } from '../io'
import { displayPath } from '../report'

/** The document a new project starts with: the frontmatter fields a document may have, and a body. */
export const EXAMPLE_DOCUMENT = `---
id: example
description: What this document answers, in one sentence; search results show it.
category: getting-started
tags: [example]
---

# An example document

Write one document per question your readers ask. Search ranks documents by
their sections, so give each topic its own heading.

## Adding documents

Put Markdown files anywhere under this folder, then run \`skill-kit build\`.
Without an \`id\` in the frontmatter, the file's path is its ID.
`

/** What the project's `.gitignore` keeps out of git: the default index, vector cache and model folders. */
export const IGNORED_FOLDER = '.skill-kit/'

/**
 * Makes the project's `.gitignore` ignore {@link IGNORED_FOLDER}: a new file, or a line
 * added to the user's own when no line names the folder yet. Returns whether it created the file.
 */
function ignoreSkillKitFolder(dir: string): boolean {
  const file = join(dir, '.gitignore')
  if (!existsSync(file)) {
    writeFileSync(file, `${IGNORED_FOLDER}\n`)
    return true
  }
  const text = readFileSync(file, 'utf8')
  const lines = text.split(/\r?\n/).map(line => line.trim())
  if (!lines.some(line => ['.skill-kit', '.skill-kit/', '/.skill-kit', '/.skill-kit/'].includes(line)))
    appendFileSync(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}${IGNORED_FOLDER}\n`)
  return false
}

/** `skill-kit init [dir]`: a new project with every setting spelled out and one document. */
export const initCommand: Command = {
  name: 'init',
  summary: '  init [dir]            Create a knowledge project: skill-kit.json and knowledge/example.md',
  usage: `Usage: skill-kit init [dir]

Creates <dir> (default: the current folder) with a skill-kit.json holding every
default setting, a knowledge/ folder with an example document, and a .gitignore
for .skill-kit/ (the index, vector cache and model files; an existing
.gitignore gets the line). Refuses when <dir> already has a skill-kit.json.`,
  options: {},
  maxPositionals: 1,
  run({ positionals }, io) {
    const dir = resolve(positionals[0] ?? '.')
    const configFile = join(dir, PROJECT_FILE)
    if (existsSync(configFile))
      throw new CliError(`${displayPath(configFile)} already exists; init leaves an existing project alone.`)
    if (existsSync(dir) && !statSync(dir).isDirectory())
      throw new CliError(`${displayPath(dir)} is a file; init needs a folder (new or existing).`)
    const config = defaultProjectConfig(basename(dir))
    const knowledge = join(dir, String(config.knowledge))
    mkdirSync(knowledge, { recursive: true })
    const created = [configFile]
    const example = join(knowledge, 'example.md')
    // An existing knowledge folder may hold the user's own example.md.
    if (!existsSync(example)) {
      writeFileSync(example, EXAMPLE_DOCUMENT)
      created.push(example)
    }
    if (ignoreSkillKitFolder(dir))
      created.push(join(dir, '.gitignore'))
    writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`, { flag: 'wx' })
    io.out(json({ project: displayPath(dir), created: created.map(displayPath) }))
    const project = dir === process.cwd() ? '' : ` --project ${displayPath(dir)}`
    io.err(`Next: add Markdown documents to ${displayPath(knowledge)}, then run "skill-kit model${project}" (once, to download the embedding model) and "skill-kit build${project}".\n`)
    return 0
  },
}
