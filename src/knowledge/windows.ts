/** How a chunk's tokens are cut into model inputs. */
export interface WindowOptions {
  /** Tokens of one model input, the two special tokens ([CLS], [SEP]) included. */
  maxTokens: number
  /** Content tokens shared by consecutive windows. */
  overlapTokens: number
}

/**
 * Cuts a chunk into model inputs on its token IDs (never by decoding and
 * re-tokenizing): each window is the context tokens (document ID, category,
 * headings) followed by a slice of the content, overlapping the previous
 * slice by `overlapTokens`. Context longer than half a window is cut, so
 * that content always gets at least half of every window. Special tokens are
 * left to the embedder.
 */
export function tokenWindows(context: readonly number[], content: readonly number[], { maxTokens, overlapTokens }: WindowOptions): number[][] {
  const room = maxTokens - 2
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
