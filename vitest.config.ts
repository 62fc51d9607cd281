import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Bundler builds are heavy; two cores share them.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
