// Node, when the runtime runs there: its built-in modules through
// `process.getBuiltinModule`, which no bundler resolves or polyfills, so the
// same runtime file works in browsers and edge runtimes.

interface NodeProcess {
  versions?: { node?: string }
  env?: Record<string, string | undefined>
  getBuiltinModule?: (id: string) => unknown
}

export const nodeProcess = (globalThis as { process?: NodeProcess }).process
export const inNode = typeof nodeProcess?.versions?.node === 'string' && typeof nodeProcess.getBuiltinModule === 'function'

/** A Node built-in module (call only when {@link inNode}). */
export function nodeBuiltin<T>(id: `node:${string}`): T {
  return nodeProcess!.getBuiltinModule!(id) as T
}

export interface NodeFs { existsSync: (path: string) => boolean }
export interface NodeFsPromises { readFile: (path: string) => Promise<Uint8Array> }
export interface NodePath { resolve: (...paths: string[]) => string, join: (...paths: string[]) => string }
export interface NodeUrl { fileURLToPath: (url: string) => string }
