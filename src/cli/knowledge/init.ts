import type { Command } from '../command'
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
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

/** `skill-kit init [dir]`: a new project with every setting spelled out and one document. */
export const initCommand: Command = {
  name: 'init',
  summary: '  init [dir]            Create a knowledge project: skill-kit.json and knowledge/example.md',
  usage: `Usage: skill-kit init [dir]

Creates <dir> (default: the current folder) with a skill-kit.json holding every
default setting and a knowledge/ folder with an example document. Refuses when
<dir> already has a skill-kit.json.`,
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
    writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`, { flag: 'wx' })
    io.out(json({ project: displayPath(dir), created: created.map(displayPath) }))
    const project = dir === process.cwd() ? '' : ` --project ${displayPath(dir)}`
    io.err(`Next: add Markdown documents to ${displayPath(knowledge)}, then run "skill-kit build${project}".\n`)
    return 0
  },
}
