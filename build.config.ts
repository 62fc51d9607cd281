import { defineBuildConfig } from 'unbuild'

export default defineBuildConfig({
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
})
