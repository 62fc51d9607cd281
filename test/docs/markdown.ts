// Reads the parts of our Markdown pages the docs tests check: headings (as
// GitHub anchors them), links and fenced code blocks, outside code fences only.

import { readdirSync } from 'node:fs'
import { join } from 'node:path'

/** A fenced code block: its info string (```ts illustrative → `ts illustrative`), its text and the line it starts on. */
export interface CodeBlock {
  info: string
  code: string
  line: number
}

export interface ParsedMarkdown {
  /** The anchors of the page's headings, as GitHub makes them (`-1`, `-2` for repeats). */
  anchors: Set<string>
  /** Every inline link target (`[text](target)`), outside code. */
  links: string[]
  blocks: CodeBlock[]
}

/** The `.md` files of a folder, sorted. */
export function markdownPages(dir: string): string[] {
  return readdirSync(dir).filter(name => name.endsWith('.md')).sort().map(name => join(dir, name))
}

/** GitHub's heading anchor: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
export function githubAnchor(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-')
}

export function parseMarkdown(text: string): ParsedMarkdown {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  const links: string[] = []
  const blocks: CodeBlock[] = []
  const lines = text.split('\n')
  let fence: { marker: string, indent: number, info: string, line: number, body: string[] } | undefined
  lines.forEach((line, index) => {
    if (fence) {
      if (line.trim() === fence.marker) {
        blocks.push({ info: fence.info, code: fence.body.join('\n'), line: fence.line })
        fence = undefined
      }
      else {
        fence.body.push(line.slice(Math.min(fence.indent, line.length - line.trimStart().length)))
      }
      return
    }
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(line)
    if (open) {
      fence = { marker: open[2]!, indent: open[1]!.length, info: open[3]!.trim(), line: index + 1, body: [] }
      return
    }
    const heading = /^#{1,6} (.*)$/.exec(line)
    if (heading) {
      const base = githubAnchor(heading[1]!)
      const count = seen.get(base) ?? 0
      seen.set(base, count + 1)
      anchors.add(count === 0 ? base : `${base}-${count}`)
    }
    for (const link of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g))
      links.push(link[1]!)
  })
  return { anchors, links, blocks }
}
