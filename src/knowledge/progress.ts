// Progress of a knowledge build, as events the pipeline emits and as the
// short lines people read. The pipeline knows counts, not time: the reporter
// takes a clock, so rates, estimates and throttling are tested without one.

/**
 * What a knowledge build is doing: `embed` after each batch of windows
 * embedded (none when every window is cached), `read` once the folder is read
 * and cut into windows, `done` once the index is published. The build streams,
 * so the first `embed` events may come before `read`: their `total` is then
 * the windows to embed found so far.
 */
export type KnowledgeProgress =
  /**
   * Documents read, their chunks (sections under headings, and metadata) and
   * the windows cut from those (model inputs, one searchable row each):
   * `windows - cached` of them are embedded (some may be already).
   */
  | { phase: 'read', documents: number, chunks: number, windows: number, cached: number }
  /**
   * `done` of the `total` windows to embed are embedded; `inFlight`, for an
   * embedding server: its requests in flight as this answer arrived (itself included).
   */
  | { phase: 'embed', done: number, total: number, inFlight?: number }
  /** An embedding server's request is retried (a 429 or 5xx answer): `line` says why and when. */
  | { phase: 'retry', line: string }
  /** The index is built and published. */
  | { phase: 'done' }

/** Where lines go, and the time they are stamped with. */
export interface ProgressReporterOptions {
  /** Receives each line, without a line break. */
  write: (line: string) => void
  /** Milliseconds from any fixed origin (`performance.now` in builds). */
  now: () => number
  /** Least time between two lines about embedding (default 2,000 ms). */
  intervalMs?: number
}

/** What the bundler plugin and the CLI put before a line where the channel does not name the plugin. */
export const PROGRESS_PREFIX = 'skill-kit: '

const count = (n: number): string => n.toLocaleString('en-US')
const plural = (n: number, word: string): string => `${count(n)} ${word}${n === 1 ? '' : 's'}`

/** `21/s`, or `2.5/s` under ten a second. */
function formatRate(perSecond: number): string {
  return perSecond >= 10 ? `${count(Math.round(perSecond))}/s` : `${perSecond.toFixed(1)}/s`
}

/** `7 s` under 100 seconds, else `3 min`: an estimate, so no more precise than that. */
function formatEstimate(seconds: number): string {
  return seconds < 99.5 ? `${Math.max(1, Math.round(seconds))} s` : `${Math.round(seconds / 60)} min`
}

/** `12.4 s` under a minute, else `2 min 5 s`. */
function formatElapsed(ms: number): string {
  const seconds = ms / 1000
  if (seconds < 59.95)
    return `${seconds.toFixed(1)} s`
  const whole = Math.round(seconds)
  return `${Math.floor(whole / 60)} min ${whole % 60} s`
}

/**
 * Turns the events of one build of knowledge base `name` into throttled lines:
 *
 * - `docs: 74 documents, 1,020 windows (812 cached, 208 to embed)` when the
 *   build has something to embed;
 * - `docs: embedded 64/208 windows (21/s, about 7 s left)` at most once per
 *   interval (the last batch is left to the final line), with
 *   `, 4 requests in flight` before the parenthesis closes on an embedding server;
 * - `docs: HTTP 429 for a request of 32 inputs; retrying in 7000 ms (attempt
 *   2 of 4).` each time an embedding server's request is retried;
 * - `docs: built in 12.4 s` when something was embedded, or when the build
 *   took longer than the interval.
 *
 * So a build that embeds nothing (a cached rebuild) prints nothing, unless it
 * is slow enough that one line about it helps.
 */
export function knowledgeProgressReporter(name: string, { write, now, intervalMs = 2000 }: ProgressReporterOptions): (event: KnowledgeProgress) => void {
  const started = now()
  let embedStarted: number | undefined
  // Windows embedded before the `read` line, left out of the rate measured from it.
  let doneBefore = 0
  let doneAtRead = 0
  let lastLine = started
  const line = (text: string) => {
    write(`${name}: ${text}`)
    lastLine = now()
  }
  return (event) => {
    switch (event.phase) {
      case 'read': {
        const pending = event.windows - event.cached
        if (pending > 0) {
          line(`${plural(event.documents, 'document')}, ${plural(event.windows, 'window')} (${count(event.cached)} cached, ${count(pending)} to embed)`)
          embedStarted = lastLine
          doneAtRead = doneBefore
        }
        break
      }
      case 'embed': {
        const time = now()
        if (embedStarted === undefined)
          doneBefore = event.done
        if (embedStarted === undefined || event.done >= event.total || time - lastLine < intervalMs)
          break
        const perSecond = (event.done - doneAtRead) / (Math.max(time - embedStarted, 1) / 1000)
        const requests = event.inFlight === undefined ? '' : `, ${plural(event.inFlight, 'request')} in flight`
        line(`embedded ${count(event.done)}/${count(event.total)} windows (${formatRate(perSecond)}, about ${formatEstimate((event.total - event.done) / perSecond)} left${requests})`)
        break
      }
      case 'retry':
        line(event.line)
        break
      case 'done': {
        const time = now()
        if (embedStarted !== undefined || time - started >= intervalMs)
          line(`built in ${formatElapsed(time - started)}`)
        break
      }
    }
  }
}
