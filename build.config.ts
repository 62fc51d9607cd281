import { copyFileSync, readFileSync } from 'node:fs'
import { defineBuildConfig } from 'unbuild'

/** The search runtime of exported skills carries its own licence: it is copied into folders that may have none. */
const LICENSE_BANNER = `/*!\n * search.mjs: the search command of a skill exported by unplugin-skill-kit.\n *\n${readFileSync('LICENSE', 'utf8').trimEnd().split('\n').map(line => ` *${line ? ` ${line}` : ''}`).join('\n')}\n */`

export default defineBuildConfig([{
  entries: [
    'src/index',
    'src/vite',
    'src/rollup',
    'src/esbuild',
    'src/rolldown',
    'src/webpack',
    'src/rspack',
    { input: 'src/runtime/index', name: 'runtime' },
    { input: 'src/runtime/skill/index', name: 'runtime-skill' },
    { input: 'src/runtime/knowledge/index', name: 'runtime-knowledge-search' },
    { input: 'src/runtime/agent/index', name: 'runtime-agent' },
    { input: 'src/runtime/search-ui/index', name: 'search-ui' },
    { input: 'src/runtime/skill/modules', name: 'runtime-modules' },
    { input: 'src/runtime/knowledge/knowledge-module', name: 'runtime-knowledge' },
    { input: 'src/cli/index', name: 'cli' },
  ],
  declaration: 'node16',
  clean: true,
  rollup: {
    emitCJS: false,
    // .gitignore matching for path triggers, inlined so that the runtime installs nothing.
    inlineDependencies: ['ignore'],
    // No bare `import './shared/…'` for chunk loading order: with "sideEffects": false,
    // bundlers (esbuild) warn that they drop such imports from the runtime files apps bundle.
    output: { hoistTransitiveImports: false },
  },
  // Bundler packages are the user's: never inline them.
  externals: ['vite', 'rollup', 'esbuild', 'webpack', '@rspack/core', 'rolldown'],
}, {
  // The search command of exported semantic skills (skill-kit export): one self-contained file,
  // so that an exported folder searches with Node alone. Built alone, so that it shares no chunk.
  entries: [{ input: 'src/export/script/search', name: 'export/search' }],
  declaration: false,
  clean: false,
  rollup: {
    emitCJS: false,
    output: { banner: LICENSE_BANNER },
  },
  hooks: {
    // The lockfile that pins @huggingface/transformers in exported folders (see src/export/assets.ts).
    'build:done': () => copyFileSync('src/export/runtime-package-lock.json', 'dist/export/package-lock.json'),
  },
}])
