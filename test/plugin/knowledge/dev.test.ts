import type { ViteDevServer } from 'vite'
import type { SkillKitViteApi } from '../../../src/plugin/vite-api'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../../scripts/models/tiny-bert.mjs'
import skillKitVite from '../../../dist/vite.mjs'
import { readPublishedIndex } from '../../../src/knowledge/publish'

const repo = resolve(import.meta.dirname, '../../..')
const work = join(repo, 'test/.tmp/knowledge-dev')
/** A knowledge folder outside Vite's workspace (the repository), which the dev server does not serve by default. */
const outside = join(mkdtempSync(join(tmpdir(), 'skill-kit-outside-')), 'docs')

describe('knowledge in the Vite dev server', () => {
  let server: ViteDevServer
  let origin: string
  beforeAll(async () => {
    rmSync(work, { recursive: true, force: true })
    cpSync(join(repo, 'test/fixtures/knowledge-app'), work, { recursive: true })
    cpSync(join(repo, 'test/fixtures/knowledge/home'), join(work, 'guides'), { recursive: true })
    await buildTinyModel(join(work, 'models'))
    cpSync(join(repo, 'test/fixtures/knowledge/home'), outside, { recursive: true })
    server = await createServer({
      configFile: false,
      root: work,
      logLevel: 'silent',
      plugins: [skillKitVite({
        offline: true,
        knowledge: {
          guides: { dir: 'guides', model: { id: TINY_MODEL_ID, cacheDir: join(work, 'models') } },
          outside: { dir: outside, model: { id: TINY_MODEL_ID, cacheDir: join(work, 'models') } },
        },
      })],
      server: { port: 0, host: '127.0.0.1' },
    })
    await server.listen()
    const address = server.httpServer!.address() as { port: number }
    origin = `http://127.0.0.1:${address.port}`
    // Both folders are cold: their modules serve the lexical index at once, and the complete one (published, with vectors) after one update.
    const api = (server.config.plugins.find(p => p.name === 'unplugin-skill-kit') as unknown as { api: SkillKitViteApi }).api
    const embedded = (name: string) => new Promise<void>((resolve) => {
      const stop = api.onKnowledgeRebuild((event) => {
        if (event.name === name && event.type === 'update') {
          stop()
          resolve()
        }
      })
    })
    const complete = Promise.all([embedded('docs'), embedded('guides')])
    await server.ssrLoadModule('/main.js')
    await complete
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    rmSync(join(outside, '..'), { recursive: true, force: true })
  })

  it('serves the snapshot the module points the browser at', async () => {
    const main = await (await fetch(`${origin}/main.js`)).text()
    const moduleUrl = /from "(\/@id\/__x00__skill-kit-knowledge:dir:[^"]+)"/.exec(main)?.[1]
    expect(moduleUrl).toBeDefined()
    const code = await (await fetch(`${origin}${moduleUrl}`)).text()
    const snapshotPath = /"(\/@skill-kit\/knowledge\/snapshot-[\w-]+\.skillkit)"/.exec(code)?.[1]
    expect(snapshotPath).toBeDefined()
    const response = await fetch(`${origin}${snapshotPath}`)
    expect(response.status).toBe(200)
    const published = readPublishedIndex(join(work, 'docs/.skill-kit/index'))!
    expect(Buffer.from(await response.arrayBuffer()).equals(Buffer.from(published.snapshot))).toBe(true)
    expect(code).not.toContain('HTTPS_PROXY')
  })

  it('lets browsers import the bodies of a knowledge folder outside the workspace', async () => {
    const code = await (await fetch(`${origin}/@id/__x00__skill-kit-knowledge:name:outside`)).text()
    // Versioned ids with no file behind them: served wherever the folder is, and never a stale body.
    const bodyUrl = /import\("(\/@id\/__x00__skill-kit-knowledge:document:[\w-]{12}:restore-backup\.js)"\)/.exec(code)?.[1]
    expect(bodyUrl).toBeDefined()
    const response = await fetch(`${origin}${bodyUrl}`)
    expect(response.status).toBe(200)
    expect(await response.text()).toContain('borg list /mnt/backup')
  })

  it('searches and retrieves in SSR, and rebuilds when a document changes', async () => {
    const first = await server.ssrLoadModule('/main.js')
    expect((await first.guides.search('router channel', { mode: 'lexical' }))[0].id).toBe('network/wifi')
    expect(await first.guides.retrieve('network/wifi')).not.toContain('mesh repeater')
    // The dev server runs in place: SSR embeds queries with the build's model cache, no includeModel needed.
    expect((await first.guides.search('wifi keeps dropping', { mode: 'vector', threshold: -1 })).map((r: { id: string }) => r.id).sort()).toEqual(['backups/schedule', 'network/wifi', 'restore-backup'])

    writeFileSync(join(work, 'guides/network/wifi.md'), '---\ndescription: Fix a Wi-Fi connection.\n---\n\n# Wi-Fi\n\nAdd a mesh repeater upstairs.\n')
    let latest = first
    for (let attempt = 0; attempt < 100; attempt++) {
      await new Promise(done => setTimeout(done, 100))
      latest = await server.ssrLoadModule('/main.js')
      if ((await latest.guides.retrieve('network/wifi')).includes('mesh repeater'))
        break
    }
    expect(await latest.guides.retrieve('network/wifi')).toContain('Add a mesh repeater upstairs.')
    expect((await latest.guides.search('mesh repeater', { mode: 'lexical' }))[0].id).toBe('network/wifi')
    expect(latest.guides.documents.find((d: { id: string }) => d.id === 'network/wifi').description).toBe('Fix a Wi-Fi connection.')
  }, 30_000)
})
