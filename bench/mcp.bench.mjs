// `skill-kit mcp` over stdio with a large registry: the MCP SDK's client
// spawns the command (bundled from the current sources) on `count` corpus
// skills and times what an agent host does: connect (spawn + initialize),
// tools/list (the skill tool's description lists every skill), a skill's
// load, resources/list, skills/list (every file's digest), and an edit of a
// SKILL.md → the tools/list_changed notification. Medians of `rounds`.
//
//   node bench/mcp.bench.mjs [--count 500] [--rounds 9] [--json]

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ResultSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { bundleCli } from '../test/support/bundle-cli.mjs'
import { writeSkills } from './corpus.mjs'
import { emitResult, fmtMs, isMain, median, numberArg } from './util.mjs'

export async function runMcpBench({ count = 500, rounds = 9, log = console.log } = {}) {
  // Inside the repository: the bundled command imports the SDK from its node_modules.
  const tmp = fileURLToPath(new URL('../test/.tmp', import.meta.url))
  mkdirSync(tmp, { recursive: true })
  const dir = mkdtempSync(join(tmp, 'bench-mcp-'))
  try {
    const script = await bundleCli(dir)
    const skills = writeSkills(join(dir, 'skills'), count)
    const client = new Client({ name: 'bench', version: '1.0.0' })
    const started = performance.now()
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [script, 'mcp', '--skills', join(dir, 'skills')], stderr: 'ignore' }))
    const connectMs = performance.now() - started

    const time = async (f) => {
      const ms = []
      for (let i = 0; i < rounds; i++) {
        const t = performance.now()
        await f(i)
        ms.push(performance.now() - t)
      }
      return median(ms)
    }
    const result = {
      count,
      connectMs,
      toolsListMs: await time(() => client.listTools()),
      loadMs: await time(i => client.callTool({ name: 'skill', arguments: { action: 'load', skill: skills[i % skills.length].name } })),
      resourcesListMs: await time(() => client.listResources()),
      skillsListMs: await time(() => client.request({ method: 'skills/list', params: {} }, ResultSchema)),
      editToNotificationMs: await time(async (i) => {
        const target = skills[i]
        const changed = new Promise(resolve => client.setNotificationHandler(ToolListChangedNotificationSchema, resolve))
        writeFileSync(target.file, target.source.replace(/^description: (.*)$/m, `description: $1 Edit ${i}.`))
        await changed
      }),
    }
    await client.close()
    log(`${count} skills: connect ${fmtMs(result.connectMs)}, tools/list ${fmtMs(result.toolsListMs)}, load ${fmtMs(result.loadMs)}, `
      + `resources/list ${fmtMs(result.resourcesListMs)}, skills/list ${fmtMs(result.skillsListMs)}, edit → tools/list_changed ${fmtMs(result.editToNotificationMs)}`)
    return result
  }
  finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (isMain(import.meta))
  emitResult(await runMcpBench({ count: numberArg('count', 500), rounds: numberArg('rounds', 9) }))
