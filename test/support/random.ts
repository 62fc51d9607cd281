// Seeded randomness for tests that need many vectors: the same data on every run.

/** Deterministic PRNG (mulberry32): numbers in [0, 1). */
export function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A random unit vector; Gaussian components, so that directions are uniform on the sphere. */
export function unitVector(dims: number, random: () => number): number[] {
  const v = Array.from({ length: dims }, () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random()))
  const norm = Math.hypot(...v)
  return v.map(x => x / norm)
}

/** `base` moved by `spread` in a random direction, unit length. */
export function near(base: readonly number[], spread: number, random: () => number): number[] {
  const noise = unitVector(base.length, random)
  const v = base.map((x, i) => x + spread * noise[i]!)
  const norm = Math.hypot(...v)
  return v.map(x => x / norm)
}
