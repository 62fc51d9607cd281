import { defineConfig } from 'vite'
// The package imports itself by name (package.json "exports"); run `npm run build` first.
import skillKit from 'unplugin-skill-kit/vite'

export default defineConfig({
  plugins: [
    // strict: a skill whose name differs from its folder fails the build.
    skillKit({ strict: true }),
  ],
})
