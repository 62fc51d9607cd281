import type { Diagnostic } from '../core/diagnostics'
import type { KnowledgeDocument } from './document'
import { readdirSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { DiagnosticBag } from '../core/diagnostics'
import { hash } from '../core/hash'
import { readBounded } from '../core/read-bounded'
import { DEFAULT_MAX_DOCUMENT_BYTES, parseKnowledgeDocument } from './document'
import { isMarkdown } from './markdown-tree'

/** The documents of a knowledge folder and every problem found in it. */
export interface KnowledgeFolder {
  documents: KnowledgeDocument[]
  diagnostics: Diagnostic[]
  /** Absolute paths of the Markdown files read, for watching. */
  files: string[]
  /** Hash of every path and text read: equal digests, equal folders (for staleness checks). */
  digest: string
}

/** One file parsed: the document (`undefined` when unusable) and the file's own problems. */
export interface ParsedDocument {
  document: KnowledgeDocument | undefined
  diagnostics: Diagnostic[]
}

export interface LoadFolderOptions {
  /**
   * Parses the file at `file` (absolute) with text `text`: `parse()` does it;
   * a memo keyed by both may return what it gave before instead, so that a
   * load parses only what changed (the dev server's routed pages).
   */
  parse?: (file: string, text: string, parse: () => ParsedDocument) => ParsedDocument
  /** Most bytes of one document (default {@link DEFAULT_MAX_DOCUMENT_BYTES}): a larger file is an error, and is never read. */
  maxDocumentBytes?: number
}

/** `bytes` for people: `52,428,800 bytes (50 MiB)`. */
function byteSize(bytes: number): string {
  const mib = bytes / 1024 / 1024
  const unit = mib >= 1 ? `${Number(mib.toFixed(1))} MiB` : `${Number((bytes / 1024).toFixed(1))} KiB`
  return `${bytes.toLocaleString('en-US')} bytes (${unit})`
}

/** The error of a document over the size limit, in the terms of the setting that raises it. */
export function documentTooLarge(size: number, limit: number): string {
  return `The document has ${byteSize(size)}; at most ${byteSize(limit)} are read. Split it into several documents, or raise "maxDocumentBytes" in skill-kit.json.`
}

/**
 * Reads every Markdown file under `dir` (nested folders included; hidden
 * entries and other files ignored). Symlinks, empty documents, invalid
 * frontmatter, duplicate IDs and files over `maxDocumentBytes` are errors;
 * documents come sorted by path.
 */
export function loadKnowledgeFolder(dir: string, options: LoadFolderOptions = {}): KnowledgeFolder {
  const maxBytes = options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES
  const diagnostics: Diagnostic[] = []
  const documents: KnowledgeDocument[] = []
  const files: string[] = []
  const firstById = new Map<string, string>()
  const read: string[] = []

  const walk = (folder: string) => {
    const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      if (entry.name.startsWith('.'))
        continue
      const path = join(folder, entry.name)
      if (entry.isSymbolicLink()) {
        const bag = new DiagnosticBag(path)
        read.push(`link:${relative(dir, path)}`)
        bag.error('document-symlink', 'Symbolic links are not followed in a knowledge folder. Copy the file or folder in instead.', { line: 1, column: 1 })
        diagnostics.push(...bag.items)
      }
      else if (entry.isDirectory()) {
        walk(path)
      }
      else if (entry.isFile() && isMarkdown(entry.name)) {
        files.push(path)
        const bounded = readBounded(path, maxBytes)
        if (!('text' in bounded)) {
          const bag = new DiagnosticBag(path)
          read.push(`large:${relative(dir, path)}`, `${bounded.size}:${bounded.mtimeMs}`)
          bag.error('document-too-large', documentTooLarge(bounded.size, maxBytes), { line: 1, column: 1 })
          diagnostics.push(...bag.items)
          continue
        }
        const { text } = bounded
        read.push(`file:${relative(dir, path)}`, text)
        const parse = (): ParsedDocument => {
          const bag = new DiagnosticBag(path)
          return { document: parseKnowledgeDocument(relative(dir, path).split(sep).join('/'), text, bag), diagnostics: bag.items }
        }
        const { document, diagnostics: own } = options.parse ? options.parse(path, text, parse) : parse()
        const bag = new DiagnosticBag(path)
        bag.items.push(...own)
        if (document) {
          const first = firstById.get(document.id)
          if (first)
            bag.error('document-id-duplicate', `The ID "${document.id}" is already used by ${relative(dir, first).split(sep).join('/')}. IDs must be unique: set a different "id" in one of them.`, { line: 1, column: 1 })
          else firstById.set(document.id, path)
          if (!first)
            documents.push(document)
        }
        diagnostics.push(...bag.sorted())
      }
    }
  }
  walk(dir)
  return { documents, diagnostics, files, digest: hash(...read) }
}
