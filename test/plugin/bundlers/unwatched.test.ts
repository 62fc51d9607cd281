// A build that nothing watches registers no watch files: each registration is
// a call into the bundler (issue 25). Watch builds register them
// (watch-builds.test.ts). Uses the plugin from dist/: run `npm run build` first.

import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { rollup } from 'rollup'
import { describe, expect, it } from 'vitest'

const repo = resolve(import.meta.dirname, '../../..')
const folder = join(repo, 'test/skill/fixtures/valid/xlsx')

/** An entry importing the fixture skill's cover, its module and the registry. */
const entry = {
  name: 'entry',
  resolveId: (id: string) => id === 'entry' ? id : null,
  load: (id: string) => id === 'entry'
    ? `import cover from ${JSON.stringify(`${folder}/SKILL.md?cover`)}\nimport skill from ${JSON.stringify(`${folder}/SKILL.md`)}\nexport { cover, skill }\n`
    : null,
}

describe('a one-shot Rollup build', () => {
  it('registers none of the skill\'s files and still compiles it', async () => {
    const { default: skillKit } = await import(pathToFileURL(join(repo, 'dist/rollup.mjs')).href)
    const bundle = await rollup({ input: 'entry', plugins: [entry, skillKit({ root: folder })], logLevel: 'silent' })
    const { output } = await bundle.generate({ format: 'es' })
    await bundle.close()
    expect(output[0].code).toContain('This skill is progressive')
    expect(bundle.watchFiles.filter(file => file.startsWith(folder))).toEqual([])
  })
})
