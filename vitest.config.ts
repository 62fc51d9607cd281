import { configDefaults, defineConfig } from 'vitest/config'

// Three projects, run in this order by `vitest run` (`npm test`), one at a time by
// `--project <name>` (README, "Develop"). A test file is a unit test unless it is listed here.

/**
 * End to end: headless Chromium, the real all-MiniLM-L6-v2 (rebuilt into .cache/models),
 * the package installed from its tarball.
 */
const E2E = [
  'test/browser/**/*.test.ts',
  'test/install/**/*.test.ts',
  'test/plugin/diagnostics-dev.test.ts', // Vite's error overlay, in Chromium
  'test/plugin/knowledge/html-preloads.test.ts', // preload links reused by the page, in Chromium
  'test/cli/model.test.ts',
  'test/cli/watch.test.ts',
  'test/knowledge/models.test.ts',
  'test/knowledge/retrieval.test.ts',
  'test/knowledge/query-table/distil-minilm.test.ts',
  'test/knowledge/query-table/vocabulary.test.ts',
  'test/runtime/knowledge/vector/encoder/wordpiece.test.ts',
  'test/runtime/search-ui/search-ui.test.ts', // the search component, in Chromium
  'test/integrations/**/*.test.ts', // VitePress, Astro and multi-page Vite sites built with dist/, searched in Chromium
]

/**
 * Integration: the built package (`dist/`, so `npm run build` first) in the six bundlers,
 * the `skill-kit` command as a process, and the tiny test model through Transformers.js.
 */
const INTEGRATION = [
  'test/plugin/**/!(ids|builds).test.ts', // skills/ids.test.ts and folders/builds.test.ts need no build: unit tests
  'test/cli/**/*.test.ts',
  'test/client/**/*.test.ts',
  'test/export/export.test.ts',
  'test/docs/code-blocks.test.ts', // the examples of README.md and docs/, built with dist/
  'test/export/hostile-routing.test.ts',
  'test/knowledge/build.test.ts',
  'test/knowledge/embedder.test.ts',
  'test/knowledge/project.test.ts',
  'test/knowledge/project-query-table.test.ts',
  'test/knowledge/server-embedder.test.ts',
  'test/runtime/knowledge/query-embedder.test.ts',
]

export default defineConfig({
  test: {
    // Bundler builds are heavy; two cores share them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...INTEGRATION, ...E2E],
          sequence: { groupOrder: 0 },
          // Sources and seeded data only, no shared files: two files at once use both cores.
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          exclude: [...configDefaults.exclude, ...E2E],
          sequence: { groupOrder: 1 },
          // Each file builds in its own test/.tmp folder and its own temporary folders, and the
          // test models are published atomically: two files at once share nothing they write.
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: E2E,
          sequence: { groupOrder: 2 },
          // Much of a browser's or an installed app's time is spent waiting on another process,
          // and two first builds of a test model at once both succeed (publishDir).
          maxWorkers: 2,
        },
      },
    ],
  },
})
