// The original documents an export copies come from the knowledge folder only:
// a path of a damaged or edited index that leaves the folder, or a symbolic
// link, is refused before anything is read.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ExportError } from '../../src/export/error'
import { originalDocuments } from '../../src/export/sources'
import { loadKnowledgeFolder } from '../../src/knowledge/load-folder'

const root = mkdtempSync(join(tmpdir(), 'skill-kit-sources-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const CHANGED = 'Documents changed while the skill was exported, so nothing was written. Export again once the edits are done.'

function folder(name: string): string {
  const dir = join(root, name, 'knowledge')
  mkdirSync(join(dir, 'guides'), { recursive: true })
  writeFileSync(join(dir, 'guides/a.md'), '# A\n\nText.\n')
  writeFileSync(join(root, name, 'secret.md'), '# Secret\n')
  return dir
}

describe('originalDocuments', () => {
  it('copies the documents of the folder', async () => {
    const dir = folder('plain')
    const files = await originalDocuments(dir, ['guides/a.md'], loadKnowledgeFolder(dir).digest)
    expect(await Promise.all(files.map(async f => [f.path, String(await f.read())]))).toEqual([['references/guides/a.md', '# A\n\nText.\n']])
  })

  it('refuses a path outside the folder, even with the folder\'s digest', async () => {
    const dir = folder('outside')
    const digest = loadKnowledgeFolder(dir).digest
    await expect(originalDocuments(dir, ['guides/a.md', '../secret.md'], digest)).rejects.toThrow(new ExportError('documents-changed', CHANGED))
    await expect(originalDocuments(dir, ['guides/../../secret.md'], digest)).rejects.toThrow(new ExportError('documents-changed', CHANGED))
  })

  it('refuses a document that became a symbolic link', async () => {
    const dir = folder('link')
    const digest = loadKnowledgeFolder(dir).digest
    rmSync(join(dir, 'guides/a.md'))
    symlinkSync(join(root, 'link/secret.md'), join(dir, 'guides/a.md'))
    await expect(originalDocuments(dir, ['guides/a.md'], digest)).rejects.toThrow(new ExportError('documents-changed', CHANGED))
  })
})
