import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DiagnosticBag } from '../../src/core/diagnostics'
import { chunkDocument } from '../../src/knowledge/chunk'
import { parseKnowledgeDocument } from '../../src/knowledge/document'
import { loadKnowledgeFolder } from '../../src/knowledge/load-folder'

const home = join(import.meta.dirname, '../fixtures/knowledge/home')

describe('loadKnowledgeFolder', () => {
  it('reads nested Markdown with or without frontmatter, ignoring hidden and other files', () => {
    const { documents, diagnostics, files } = loadKnowledgeFolder(home)
    expect(diagnostics).toEqual([])
    expect(files.map(f => f.slice(home.length + 1))).toEqual(['backups/restore.md', 'backups/schedule.md', 'network/wifi.md'])
    expect(documents.map(({ body, ...rest }) => rest)).toEqual([
      { id: 'restore-backup', path: 'backups/restore.md', title: 'Restore a backup', description: 'Restore deleted files from a backup archive.', category: 'backups', categories: ['backups'], tags: ['restore', 'recovery'], bodyLine: 7 },
      { id: 'backups/schedule', path: 'backups/schedule.md', title: 'Schedule backups', description: '', category: 'backups', categories: ['backups'], tags: [], bodyLine: 1 },
      { id: 'network/wifi', path: 'network/wifi.md', title: 'Wi-Fi troubleshooting', description: 'Fix a Wi-Fi connection that keeps dropping.', category: 'network', categories: ['network', 'troubleshooting'], tags: ['wifi', 'router'], bodyLine: 6 },
    ])
  })
})

describe('document titles', () => {
  const titleOf = (source: string) => {
    const bag = new DiagnosticBag('doc.md')
    const document = parseKnowledgeDocument('guide/doc.md', source, bag)
    expect(bag.items).toEqual([])
    return document!.title
  }

  it('takes frontmatter title, else the first heading as it renders, else the ID', () => {
    expect(titleOf('---\ntitle: Dialogs, done right\n---\n# Light dismiss\n\nText.\n')).toBe('Dialogs, done right')
    expect(titleOf('Intro text.\n\n```md\n# Not a heading\n```\n\n## Use `<dialog>` **now** {#use-dialog}\n\nText.\n')).toBe('Use <dialog> now')
    expect(titleOf('Text without any heading.\n')).toBe('guide/doc')
  })
})

describe('invalid knowledge folders', () => {
  let dir: string
  afterEach(() => rmSync(dir, { recursive: true, force: true }))
  const write = (files: Record<string, string>) => {
    dir = mkdtempSync(join(tmpdir(), 'skill-kit-kb-'))
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true })
      writeFileSync(join(dir, path), text)
    }
  }

  it('reports empty documents, invalid YAML, bad fields and duplicate IDs with file and line', () => {
    write({
      'a.md': '---\nid: same\n---\nText.\n',
      'b/b.md': '---\nid: same\n---\nOther.\n',
      'empty.md': '---\ndescription: Nothing below.\n---\n\n',
      'yaml.md': '---\ntags: [one\n---\nText.\n',
      'fields.md': '---\ntags: 3\ncategory: [x]\n---\nText.\n',
    })
    const { documents, diagnostics } = loadKnowledgeFolder(dir)
    expect(documents.map(d => d.id)).toEqual(['same'])
    expect(diagnostics.map(d => [d.file.slice(dir.length + 1), d.code, d.line])).toEqual([
      ['b/b.md', 'document-id-duplicate', 1],
      ['empty.md', 'document-empty', 3],
      ['fields.md', 'document-field-invalid', 2],
      ['fields.md', 'document-field-invalid', 3],
      ['yaml.md', 'yaml-syntax', 2],
    ])
    expect(diagnostics[0]!.message).toBe('The ID "same" is already used by a.md. IDs must be unique: set a different "id" in one of them.')
  })

  it.each([
    ['empty.md', '---\ndescription: Nothing below.\n---\n\n', 'document-empty', 3, 1, 'The document has no content. Write its guidance, or delete the file.'],
    ['list.md', '---\n- a\n- b\n---\nText.\n', 'document-frontmatter-invalid', 2, 1, 'The frontmatter must be a YAML mapping (id, description, category, categories, tags).'],
    ['open.md', '---\nid: open\nText.\n', 'document-frontmatter-unclosed', 1, 1, 'The frontmatter opened on line 1 is never closed. Add a "---" line after it.'],
    ['id.md', '---\nid: 42\n---\nText.\n', 'document-field-invalid', 2, 5, '"id" must be a non-empty string.'],
    ['tags.md', '---\ntags: [a, 2]\n---\nText.\n', 'document-field-invalid', 2, 7, '"tags" must be a list of non-empty strings, e.g. tags: [restore, recovery].'],
    ['yaml.md', '---\ndescription: [unclosed\n---\nText.\n', 'yaml-syntax', 2, 23, 'Invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]. Fix the frontmatter syntax.'],
    ['deep.md', `---\ntags: ${'['.repeat(8000)}${']'.repeat(8000)}\n---\nText.\n`, 'yaml-too-deep', 2, 70, 'The frontmatter nests more than 64 levels of mappings, lists or brackets. Flatten it: fields need a few levels at most.'],
    ['long.md', `---\ntitle: "${'a'.repeat(262_144)}"\n---\nText.\n`, 'yaml-too-long', 2, 1, 'The frontmatter has 262,153 characters; at most 262,144 are allowed. Move long text into the body.'],
    ['cycle.md', '---\ntags: &t [a, *t]\n---\nText.\n', 'yaml-alias-cycle', 2, 14, 'The alias *t refers to a value that contains it, so it never ends. Repeat the value itself instead of the alias.'],
  ])('%s: %s', (file, text, code, line, column, message) => {
    write({ [file]: text })
    const [d, ...rest] = loadKnowledgeFolder(dir).diagnostics
    expect(rest).toEqual([])
    expect(d).toEqual({ code, severity: 'error', file: join(dir, file), line, column, message })
  })

  it('refuses symlinks', () => {
    write({ 'real.md': 'Text.\n' })
    symlinkSync(join(dir, 'real.md'), join(dir, 'link.md'))
    expect(loadKnowledgeFolder(dir).diagnostics.map(d => [d.code, d.file, d.line, d.column, d.message])).toEqual([
      ['document-symlink', join(dir, 'link.md'), 1, 1, 'Symbolic links are not followed in a knowledge folder. Copy the file or folder in instead.'],
    ])
  })
})

describe('chunkDocument', () => {
  const { documents } = loadKnowledgeFolder(home)

  it('splits at headings, keeps fenced code whole, and adds a metadata chunk', () => {
    expect(chunkDocument(documents[0]!, 0)).toEqual([
      { document: 0, kind: 'metadata', context: [], text: 'Restore deleted files from a backup archive.\nCategories: backups\nTags: restore, recovery' },
      { document: 0, kind: 'section', context: [], title: 'Restore a backup', text: '# Restore a backup\n\nFind the newest archive that still has the file, then extract only that path.' },
      { document: 0, kind: 'section', context: ['Restore a backup'], title: 'From the command line', text: '## From the command line\n\n```sh\n# list the archives\nborg list /mnt/backup\n```' },
      { document: 0, kind: 'section', context: ['Restore a backup'], title: 'From the desktop app', text: '## From the desktop app\n\nOpen Backups, pick a date, select the files and press Restore.' },
    ])
  })

  it('keeps a document of headings only as one chunk', () => {
    const [doc] = loadKnowledgeFolder(home).documents
    const stub = { ...doc!, description: '', categories: [], tags: [], body: '# Roadmap\n\n## Later\n' }
    expect(chunkDocument(stub, 4)).toEqual([{ document: 4, kind: 'section', context: [], text: '# Roadmap\n\n## Later' }])
  })

  it('reads setext headings', () => {
    expect(chunkDocument(documents[2]!, 2).map(c => [c.context, c.text.split('\n')[0]])).toEqual([
      [[], 'Fix a Wi-Fi connection that keeps dropping.'],
      [[], 'Wi-Fi troubleshooting'],
      [['Wi-Fi troubleshooting'], 'Channels'],
    ])
  })
})
