// The values YAML frontmatter and config files read as, apart from the two
// parsers that produce them (yaml.ts, yaml-simple.ts), which both name them.

/** A plain JSON-like value read from YAML. */
export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue }

/** True for a YAML mapping read by `parseYaml`. */
export function isYamlMapping(value: YamlValue | undefined): value is { [key: string]: YamlValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
