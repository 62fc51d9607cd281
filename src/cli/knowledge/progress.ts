import type { KnowledgeProgress } from '../../knowledge/progress'
import type { CliIo } from '../io'
import { knowledgeProgressReporter, PROGRESS_PREFIX } from '../../knowledge/progress'

const WIDTH = 30

/**
 * A one-line progress bar on stderr, redrawn in place: only on a terminal,
 * since in a log or a pipe the carriage returns would pile up as garbage.
 * `done()` erases the line, so the summary that follows stands alone.
 */
export function progressBar(io: CliIo, label: string): { update: (done: number, total: number, inFlight?: number) => void, done: () => void } {
  let drawn = false
  return {
    update(done, total, inFlight) {
      if (!io.errIsTTY || total === 0)
        return
      const filled = Math.round(WIDTH * done / total)
      // Erased to the end: the in-flight count may shrink the line.
      io.err(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${done}/${total}${inFlight === undefined ? '' : ` (${inFlight} in flight)\x1B[K`}`)
      drawn = true
    },
    done() {
      if (drawn)
        io.err('\r\x1B[2K')
      drawn = false
    },
  }
}

/**
 * How `skill-kit build` shows a build of knowledge base `name` on stderr: on a
 * terminal, the bar; elsewhere (CI logs, pipes), the plugin's throttled
 * progress lines, one per line. Start it before the model loads, so that
 * "built in" counts the whole build.
 */
export function buildProgress(io: CliIo, name: string): { onProgress: (event: KnowledgeProgress) => void, done: () => void } {
  if (io.errIsTTY) {
    const bar = progressBar(io, 'Embedding')
    return { onProgress: event => event.phase === 'embed' && bar.update(event.done, event.total, event.inFlight), done: bar.done }
  }
  const report = knowledgeProgressReporter(name, { write: line => io.err(`${PROGRESS_PREFIX}${line}\n`), now: () => performance.now() })
  return { onProgress: report, done: () => {} }
}
