/** How a chunk's tokens are cut into model inputs. */
export interface WindowOptions {
  /** Tokens of one model input, special tokens and prefix included. */
  maxTokens: number
  /** Of those, the tokens the embedder adds itself (default 2: [CLS] and [SEP]). */
  reserved?: number
  /** Content tokens shared by consecutive windows. */
  overlapTokens: number
}

/**
 * Cuts a chunk into model inputs on its token IDs (never by decoding and
 * re-tokenizing): each window is the context tokens (document ID, category,
 * headings) followed by a slice of the content, overlapping the previous
 * slice by `overlapTokens`. Context longer than half a window is cut, so
 * that content always gets at least half of every window. Special tokens and
 * prefixes (`reserved`) are left to the embedder.
 */
export function tokenWindows(context: readonly number[], content: readonly number[], { maxTokens, overlapTokens, reserved = 2 }: WindowOptions): number[][] {
  const room = maxTokens - reserved
  const head = context.slice(0, Math.min(context.length, Math.floor(room / 2)))
  const budget = room - head.length
  if (content.length <= budget)
    return [[...head, ...content]]
  const stride = Math.max(1, budget - Math.min(overlapTokens, budget - 1))
  const windows: number[][] = []
  for (let start = 0; ; start += stride) {
    windows.push([...head, ...content.slice(start, start + budget)])
    if (start + budget >= content.length)
      return windows
  }
}
