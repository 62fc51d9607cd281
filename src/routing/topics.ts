import { editDistance } from '../runtime/closest'

/** A word in its singular form, as far as English plurals go by rule. */
function singular(word: string): string {
  if (word.length <= 3 || /(?:ss|us|is)$/.test(word))
    return word
  if (/ies$/.test(word))
    return `${word.slice(0, -3)}y`
  if (/(?:sh|ch|x|z|ss)es$/.test(word))
    return word.slice(0, -2)
  return word.endsWith('s') ? word.slice(0, -1) : word
}

/** The form topics are compared in: lowercase, punctuation as spaces, words singular. */
export function topicKey(topic: string): string {
  return topic.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim().split(' ').map(singular).join(' ')
}

/** Whether two topic keys are likely the same topic spelt differently (a typo or two). */
function near(x: string, y: string): boolean {
  // Words run together or apart ("back ups", "backup") are the same words.
  const a = x.replace(/ /g, '')
  const b = y.replace(/ /g, '')
  const shorter = Math.min(a.length, b.length)
  const most = shorter >= 12 ? 2 : 1
  // Lengths further apart than the edits allowed cannot be near: no table to fill.
  return shorter >= 5 && Math.abs(a.length - b.length) <= most && editDistance(a, b) <= most
}

/**
 * Maps each proposed topic to its group's name: topics equal after case,
 * whitespace and plurals, or a typo apart, become one. Known names (explicit
 * categories) win as they are written; otherwise the most proposed spelling of
 * the most proposed form (then the first alphabetically) names the group. Deterministic.
 */
export function normalizeTopics(proposed: readonly string[], known: readonly string[] = []): Map<string, string> {
  const tidy = (topic: string) => topic.replace(/\s+/g, ' ').trim()
  const spellings = new Map<string, Map<string, number>>()
  for (const topic of proposed.map(tidy).filter(Boolean)) {
    const key = topicKey(topic)
    const counts = spellings.get(key) ?? new Map<string, number>()
    counts.set(topic, (counts.get(topic) ?? 0) + 1)
    spellings.set(key, counts)
  }
  const total = (key: string) => [...spellings.get(key)!.values()].reduce((a, b) => a + b, 0)
  const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  // Representatives: known names first, then keys from the most proposed down.
  const representatives: { key: string, name?: string }[] = known.map(name => ({ key: topicKey(name), name }))
  const keyGroup = new Map<string, { key: string, name?: string }>()
  for (const key of [...spellings.keys()].sort((a, b) => total(b) - total(a) || byText(a, b))) {
    let rep = representatives.find(r => r.key === key) ?? representatives.find(r => near(r.key, key))
    if (!rep) {
      rep = { key }
      representatives.push(rep)
    }
    keyGroup.set(key, rep)
  }
  const names = new Map<{ key: string, name?: string }, string>()
  for (const rep of new Set(keyGroup.values())) {
    if (rep.name !== undefined) {
      names.set(rep, rep.name)
      continue
    }
    // The most proposed spelling of the group's most proposed form.
    names.set(rep, [...spellings.get(rep.key)!].sort((a, b) => b[1] - a[1] || byText(a[0], b[0]))[0]![0])
  }
  const out = new Map<string, string>()
  for (const topic of proposed)
    out.set(topic, names.get(keyGroup.get(topicKey(tidy(topic)))!) ?? tidy(topic))
  return out
}
