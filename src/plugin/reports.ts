/**
 * The code of a module that failed: after its error (bundlers that only
 * record it go on with what `load` returns), or for another module of a file
 * whose error one module already reported in this build. It throws, so it is
 * never shipped as a valid module.
 */
export const FAILED_MODULE = 'throw new Error("unplugin-skill-kit could not build this module: see the build\'s errors.")\n'

/**
 * What this build has reported, so that each problem shows once per build in
 * every bundler. Most bundlers load each query form of a skill
 * (and the registry) as a module of its own, and would report one invalid
 * skill once per module.
 *
 * `index.ts` clears it when a build starts (every watch rebuild) and when a
 * watched file changes (the Vite dev server has no builds). Code that makes
 * modules stale by other means (a dev-server watcher that reloads modules
 * itself) calls {@link BuildReports.clear} first, so their next load reports again.
 */
export class BuildReports {
  /** Each invalid file → the module that reported it. */
  private readonly failures = new Map<string, string>()
  private readonly warnings = new Set<string>()

  /**
   * Whether module `id` reports invalid `file`: the first module to load it
   * does, and again when it is loaded again (the dev server on a page
   * reload); any other module of the file fails without a second copy.
   */
  reportsFailure(file: string, id: string): boolean {
    const reporter = this.failures.get(file)
    if (reporter !== undefined && reporter !== id)
      return false
    this.failures.set(file, id)
    return true
  }

  /** The module that reported invalid `file`, if one did since the last {@link clear}. */
  reporter(file: string): string | undefined {
    return this.failures.get(file)
  }

  /** Whether the warning `key` (its file, line and code) is new since the last {@link clear}; it then counts as shown. */
  firstWarning(key: string): boolean {
    if (this.warnings.has(key))
      return false
    this.warnings.add(key)
    return true
  }

  /** Forgets everything reported: the next load reports again. */
  clear(): void {
    this.failures.clear()
    this.warnings.clear()
  }
}
