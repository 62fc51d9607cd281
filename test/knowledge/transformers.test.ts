// Transformers.js as an optional peer dependency: a missing package is told apart from a
// package that fails to load, on the errors Node itself throws (real imports and
// resolutions from a temporary folder outside the repository, where nothing is installed;
// imports run in a child process, so that Node's loader, not vitest's, resolves them).

import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertTransformersInstalled,
  importTransformers,
  isPackageMissing,
  loadTransformers,
  TRANSFORMERS_MISSING_MESSAGE,
  TransformersMissingError,
} from '../../src/knowledge/transformers'

const MESSAGE = 'Knowledge bases are embedded with Transformers.js, which is not installed. '
  + 'Install it: npm i -D @huggingface/transformers '
  + '(where onnxruntime-node\'s install script cannot download its CUDA libraries from api.nuget.org: '
  + 'ONNXRUNTIME_NODE_INSTALL=skip npm i -D @huggingface/transformers). '
  + `A knowledge base with "model": false (in skill-kit.json, or model: false in the plugin's knowledge option) is searched lexically and needs no model.`

/** Prints the code and message of the error that importing `argv[1]` throws. */
const IMPORT_SCRIPT = `import(process.argv[1]).then(
  () => console.log(JSON.stringify({ code: 'loaded', message: 'loaded' })),
  e => console.log(JSON.stringify({ code: e.code, message: e.message })),
)`

let dir: string
/**
 * Imports a file of `dir` in a separate Node process (vitest's module runner would resolve
 * its imports from this repository) and rejects with the error Node threw there.
 */
let nodeImport: (file: string) => Promise<never>

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'skill-kit-transformers-'))
  // An app without Transformers.js: its code imports the package.
  writeFileSync(join(dir, 'app.mjs'), 'export * from \'@huggingface/transformers\'\n')
  // A Transformers.js that is installed but whose own dependency is not.
  const fake = join(dir, 'broken/node_modules/@huggingface/transformers')
  mkdirSync(fake, { recursive: true })
  writeFileSync(join(fake, 'package.json'), JSON.stringify({ name: '@huggingface/transformers', type: 'module', exports: './index.js' }))
  writeFileSync(join(fake, 'index.js'), 'export * from \'onnxruntime-node\'\n')
  writeFileSync(join(dir, 'broken/app.mjs'), 'export * from \'@huggingface/transformers\'\n')
  nodeImport = file => new Promise((_, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', IMPORT_SCRIPT, pathToFileURL(join(dir, file)).href], (error, stdout) => {
      if (error)
        return reject(error)
      const { code, message } = JSON.parse(stdout) as { code: string, message: string }
      reject(Object.assign(new Error(message), { code }))
    })
  })
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('Transformers.js, an optional peer dependency', () => {
  it('a missing package fails with the install command, from import and from resolution', async () => {
    expect(TRANSFORMERS_MISSING_MESSAGE).toBe(MESSAGE)
    const error = await importTransformers(() => nodeImport('app.mjs')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TransformersMissingError)
    expect((error as Error).message).toBe(MESSAGE)
    expect(((error as Error).cause as { code?: string }).code).toBe('ERR_MODULE_NOT_FOUND')

    const resolved = (() => {
      try {
        assertTransformersInstalled(pathToFileURL(join(dir, 'app.mjs')).href)
      }
      catch (e) {
        return e
      }
    })()
    expect(resolved).toBeInstanceOf(TransformersMissingError)
    expect(((resolved as Error).cause as { code?: string }).code).toBe('MODULE_NOT_FOUND')
  })

  it('an installed package that fails to load says so, and why', async () => {
    const error = await importTransformers(() => nodeImport('broken/app.mjs')).catch((e: unknown) => e)
    expect(error).not.toBeInstanceOf(TransformersMissingError)
    expect((error as Error).message).toMatch(/^Transformers\.js \(@huggingface\/transformers\) is installed but cannot be loaded: Cannot find package 'onnxruntime-node' imported from /)
    // Resolution finds the package: only the import can tell what is wrong with it.
    expect(() => assertTransformersInstalled(pathToFileURL(join(dir, 'broken/app.mjs')).href)).not.toThrow()
  })

  it('only that package\'s own "not found" counts as missing', () => {
    const notFound = (message: string, code = 'ERR_MODULE_NOT_FOUND') => Object.assign(new Error(message), { code })
    expect(isPackageMissing(notFound('Cannot find package \'@huggingface/transformers\' imported from /app/x.mjs'), '@huggingface/transformers')).toBe(true)
    expect(isPackageMissing(notFound('Cannot find module \'@huggingface/transformers\'\nRequire stack:\n- /app/x.js', 'MODULE_NOT_FOUND'), '@huggingface/transformers')).toBe(true)
    expect(isPackageMissing(notFound('Cannot find package \'@huggingface/transformers-extra\' imported from /app/x.mjs'), '@huggingface/transformers')).toBe(false)
    expect(isPackageMissing(notFound('Cannot find package \'onnxruntime-node\' imported from /app/node_modules/@huggingface/transformers/x.mjs'), '@huggingface/transformers')).toBe(false)
    expect(isPackageMissing(new Error('Cannot find package \'@huggingface/transformers\''), '@huggingface/transformers')).toBe(false)
    expect(isPackageMissing(undefined, '@huggingface/transformers')).toBe(false)
  })

  it('loads the installed package in this repository', async () => {
    expect(() => assertTransformersInstalled()).not.toThrow()
    const transformers = await loadTransformers()
    expect(typeof transformers.AutoTokenizer.from_pretrained).toBe('function')
  })
})
