/** Approximate token count of a text: 4 characters a token, as for English prose. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

/** A skill's line in a prompt listing. */
export function listingLine(skill: { name: string, description: string }): string {
  return `- ${skill.name}: ${skill.description}`
}
