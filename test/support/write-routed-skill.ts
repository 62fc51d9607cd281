import type { RoutedSkill } from '../../src/routing/layout'
import { copyFile, mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { replaceDirAtomic } from '../../src/core/atomic'

/**
 * Writes a routed skill as a folder: `SKILL.md`, `llms.txt`, `indexes/` and
 * every document copied unchanged under `references/`. The folder appears
 * whole or not at all.
 */
export async function writeRoutedSkill(target: string, routes: RoutedSkill, knowledgeDir: string): Promise<void> {
  await replaceDirAtomic(target, async (dir) => {
    const put = async (path: string, text: string) => {
      await mkdir(dirname(join(dir, path)), { recursive: true })
      await writeFile(join(dir, path), text)
    }
    await put('SKILL.md', routes.skill)
    await put('llms.txt', routes.llmsTxt)
    for (const [path, text] of [...Object.entries(routes.pages), ...Object.entries(routes.catalog)])
      await put(path, text)
    for (const card of Object.values(routes.cards)) {
      const to = join(dir, 'references', ...card.path.split('/'))
      await mkdir(dirname(to), { recursive: true })
      await copyFile(join(knowledgeDir, ...card.path.split('/')), to)
    }
  })
}
