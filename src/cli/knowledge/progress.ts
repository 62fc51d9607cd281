import type { KnowledgeProgress } from '../../knowledge/progress'
import type { CliIo } from '../io'
import { knowledgeProgressReporter, PROGRESS_PREFIX } from '../../knowledge/progress'

const WIDTH = 30

/**
 * A one-line progress bar on stderr, redrawn in place: only on a terminal,
 * since in a log or a pipe the carriage returns would pile up as garbage.
 * `done()` erases the line, so the summary that follows stands alone.
 */
export function progressBar(io: CliIo, label: string): { update: (done: number, total: number) => void, done: () => void } {
  let drawn = false
  return {
    update(done, total) {
      if (!io.errIsTTY || total === 0)
        return
      const filled = Math.round(WIDTH * done / total)
      io.err(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${done}/${total}`)
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
    return { onProgress: event => event.phase === 'embed' && bar.update(event.done, event.total), done: bar.done }
  }
  const report = knowledgeProgressReporter(name, { write: line => io.err(`${PROGRESS_PREFIX}${line}\n`), now: () => performance.now() })
  return { onProgress: report, done: () => {} }
}
