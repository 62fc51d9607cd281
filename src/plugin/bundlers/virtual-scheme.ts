/**
 * webpack and rspack read `virtual:` as a URL scheme and never resolve it
 * through plugins; hand them the resolved id instead, which they do.
 */
export function rewriteVirtualScheme(compiler: SchemeCompiler, resolve: (request: string) => string | undefined): void {
  compiler.hooks.normalModuleFactory.tap('unplugin-skill-kit', (factory) => {
    factory.hooks.beforeResolve.tap('unplugin-skill-kit', (data) => {
      const resolved = data.request.startsWith('virtual:skill-kit/') ? resolve(data.request) : undefined
      if (resolved)
        data.request = resolved
    })
  })
}

/** What the rewrite needs of a webpack or rspack compiler. */
export interface SchemeCompiler {
  hooks: { normalModuleFactory: { tap: (name: string, fn: (factory: SchemeFactory) => void) => void } }
}

interface SchemeFactory {
  hooks: { beforeResolve: { tap: (name: string, fn: (data: { request: string }) => void) => void } }
}
