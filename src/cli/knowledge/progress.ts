import type { CliIo } from '../io'

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
