// The archive artefacts of the well-known index: the same files give the same
// bytes whatever their order, every attribute fixed; a real tar reads them
// whole, the end blocks included when the files fill a whole record.

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { parseTarGzip } from 'nanotar'
import { afterAll, describe, expect, it } from 'vitest'
import { archivePathProblem, reproducibleTarGz } from '../../src/export/tar-gz'

const encode = (text: string) => new TextEncoder().encode(text)
const FILES = [
  { path: 'scripts/run.py', data: encode('print("hi")\n') },
  { path: 'SKILL.md', data: encode('---\nname: x\ndescription: y\n---\n') },
  { path: 'references/A.md', data: encode('') },
]
const temporary = mkdtempSync(join(tmpdir(), 'skill-kit-tar-'))

afterAll(() => rmSync(temporary, { recursive: true, force: true }))

/** What GNU tar lists of `archive` (`tar -tvzf`); a warning or an error fails. */
function gnuTarList(archive: Uint8Array): string[] {
  const file = join(temporary, `${archive.length}-${FILES.length}.tar.gz`)
  writeFileSync(file, archive)
  const run = spawnSync('tar', ['--warning=all', '-tvzf', file], { encoding: 'utf8' })
  expect([run.status, run.stderr]).toEqual([0, ''])
  return run.stdout.trim().split('\n')
}

describe('reproducibleTarGz', () => {
  it('gives the same bytes for the same files in any order, sorted, with fixed attributes', async () => {
    const archive = reproducibleTarGz(FILES)
    expect(Buffer.from(reproducibleTarGz([...FILES].reverse())).equals(Buffer.from(archive))).toBe(true)
    const entries = await parseTarGzip(archive)
    expect(entries.map(e => [e.name, e.type, e.size, e.attrs?.mode, e.attrs?.uid, e.attrs?.gid, e.attrs?.mtime, e.attrs?.user])).toEqual([
      ['SKILL.md', 'file', 31, '0000644', 0, 0, 0, ''],
      ['references/A.md', 'file', 0, '0000644', 0, 0, 0, ''],
      ['scripts/run.py', 'file', 12, '0000644', 0, 0, 0, ''],
    ])
    // The gzip header: no time (bytes 4–7), maximum compression (8), "Unix" whatever the platform (9).
    expect([...archive.slice(0, 10)]).toEqual([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 3])
  })

  it('is read whole by GNU tar, end blocks included when the files fill a whole 10 KiB record', () => {
    expect(gnuTarList(reproducibleTarGz(FILES)).map(line => line.split(/\s+/).at(-1))).toEqual(['SKILL.md', 'references/A.md', 'scripts/run.py'])
    // 512 bytes of header and 9,728 of data: exactly one record, where nanotar alone leaves no end blocks.
    const full = reproducibleTarGz([{ path: 'SKILL.md', data: new Uint8Array(9728).fill(65) }])
    const tar = gunzipSync(full)
    expect(tar.length).toBe(2 * 10240)
    expect(tar.subarray(10240).every(byte => byte === 0)).toBe(true)
    expect(gnuTarList(full)).toHaveLength(1)
  })

  it('refuses paths an archive cannot hold as they are', () => {
    expect(archivePathProblem('../etc/passwd')).toBe('it is not a relative path inside the folder')
    expect(archivePathProblem('/etc/passwd')).toBe('it is not a relative path inside the folder')
    expect(archivePathProblem('a//b')).toBe('it is not a relative path inside the folder')
    expect(archivePathProblem(`references/${'é'.repeat(45)}.md`)).toBe('its path has 104 bytes, and an archive entry\'s at most 100')
    expect(archivePathProblem(`references/${'e'.repeat(86)}.md`)).toBeUndefined()
    expect(() => reproducibleTarGz([{ path: 'a/../../b', data: new Uint8Array() }])).toThrow('Invalid archive entry a/../../b')
    expect(() => reproducibleTarGz([FILES[0]!, FILES[0]!])).toThrow('given twice')
  })
})
