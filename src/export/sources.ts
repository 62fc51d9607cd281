// What every export copies from the project as it is: the original documents
// (checked against the index or routes they were exported with) and the
// project's licence files.

import type { ExportFile } from './folder'
import { readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { loadKnowledgeFolder } from '../knowledge/load-folder'
import { ExportError } from './error'
import { copyOf, fileOf } from './folder'

/** Where the original documents go in an export, under their path in the knowledge folder. */
export const REFERENCES_DIR = 'references'

/** The project's licence files, copied under their own names: LICENSE, NOTICE, COPYING, with or without .md or .txt. */
const LICENSE_FILE = /^(?:LICEN[CS]E|NOTICE|COPYING)(?:\.(?:md|txt))?$/i

/** `LICENSE`, `NOTICE` (and the like) of the project folder, as export files. */
export function licenseFiles(projectDir: string): ExportFile[] {
  return readdirSync(projectDir, { withFileTypes: true })
    .filter(entry => entry.isFile() && LICENSE_FILE.test(entry.name))
    .map(entry => copyOf(entry.name, join(projectDir, entry.name)))
}

const CHANGED = 'Documents changed while the skill was exported, so nothing was written. Export again once the edits are done.'

/**
 * The original documents (`paths`, relative to `knowledgeDir`), unchanged,
 * as `references/<path>`. They are read now and checked against `digest`,
 * the folder the index or routes were made from: an edit meanwhile is an
 * {@link ExportError}, so an export never pairs an index with other texts.
 * Only documents the folder holds now (real files, no symbolic links) are
 * read: a path from a damaged or edited index never reaches outside it.
 * `maxDocumentBytes` is the project's, as the index was built with.
 */
export async function originalDocuments(knowledgeDir: string, paths: readonly string[], digest: string, maxDocumentBytes?: number): Promise<ExportFile[]> {
  const held = new Set(loadKnowledgeFolder(knowledgeDir, { maxDocumentBytes }).documents.map(d => d.path))
  if (paths.some(path => !held.has(path)))
    throw new ExportError('documents-changed', CHANGED)
  let texts: Uint8Array[]
  try {
    texts = await Promise.all(paths.map(path => readFile(join(knowledgeDir, ...path.split('/')))))
  }
  catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new ExportError('documents-changed', CHANGED)
    throw error
  }
  if (loadKnowledgeFolder(knowledgeDir, { maxDocumentBytes }).digest !== digest)
    throw new ExportError('documents-changed', CHANGED)
  return paths.map((path, i) => fileOf(`${REFERENCES_DIR}/${path}`, texts[i]!))
}
