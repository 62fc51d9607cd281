/**
 * `run` over `items` with at most `limit` calls in flight, results in input
 * order. After a failure no new call starts; the first failure is thrown once
 * the calls in flight have settled.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, run: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = Array.from({ length: items.length })
  let next = 0
  let failure: { error: unknown } | undefined
  const worker = async () => {
    while (!failure && next < items.length) {
      const index = next++
      try {
        results[index] = await run(items[index]!, index)
      }
      catch (error) {
        failure ??= { error }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  if (failure)
    throw failure.error
  return results
}
