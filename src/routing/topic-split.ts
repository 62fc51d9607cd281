// The capacity-bound split behind content topics, over any space of document
// vectors: the lexical terms' sparse TF-IDF vectors or a base's dense
// embeddings. Deterministic: seeds and ties go by document ID.

/** Document vectors as a clustering sees them: each document's, their similarity, a group's centroid. */
export interface TopicSpace<V> {
  vector: (id: string) => V
  /** Similarity of two unit vectors (their dot product). */
  dot: (a: V, b: V) => number
  /** The unit mean of some documents' vectors. */
  centroid: (ids: readonly string[]) => V
}

/** How often a clustering pass reassigns before it stops (it usually settles in 3–5). */
const ROUNDS = 12

export const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * `ids` (sorted) in `k` clusters of at most `capacity`: seeds far apart
 * (farthest-first from the most central document), then rounds of
 * capacity-bound assignment, strongest affinities first, to the clusters'
 * centroids. Ties go by ID, so the result depends on the documents only.
 */
export function splitTopics<V>(ids: readonly string[], k: number, capacity: number, space: TopicSpace<V>): string[][] {
  const { vector, dot, centroid } = space
  const whole = centroid(ids)
  const central = [...ids].sort((a, b) => dot(vector(b), whole) - dot(vector(a), whole) || byText(a, b))[0]!
  const seeds = [central]
  while (seeds.length < k) {
    const far = ids
      .filter(id => !seeds.includes(id))
      .map(id => ({ id, near: Math.max(...seeds.map(seed => dot(vector(id), vector(seed)))) }))
      .sort((a, b) => a.near - b.near || byText(a.id, b.id))[0]!
    seeds.push(far.id)
  }
  let centroids = seeds.map(seed => vector(seed))
  let clusters: string[][] = []
  let previous = ''
  for (let round = 0; round < ROUNDS; round++) {
    const pairs = ids.flatMap(id => centroids.map((c, cluster) => ({ id, cluster, affinity: dot(vector(id), c) })))
      .sort((a, b) => b.affinity - a.affinity || byText(a.id, b.id) || a.cluster - b.cluster)
    clusters = centroids.map(() => [])
    const placed = new Set<string>()
    for (const { id, cluster } of pairs) {
      if (placed.has(id) || clusters[cluster]!.length >= capacity)
        continue
      clusters[cluster]!.push(id)
      placed.add(id)
    }
    clusters = clusters.filter(cluster => cluster.length > 0).map(cluster => cluster.sort(byText))
    const key = clusters.map(cluster => cluster.join('\0')).join('\n')
    if (key === previous)
      break
    previous = key
    centroids = clusters.map(cluster => centroid(cluster))
  }
  return clusters
}
