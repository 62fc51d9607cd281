// What a hostile routing model answers, and how the tests check that none of
// it became a link, image, HTML or key on the pages: shared by the routing
// tests (in this process) and the export tests (the CLI).

import type { Token } from 'marked'
import type { Call, Reply } from './model-server'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, posix, relative, sep } from 'node:path'
import { marked } from 'marked'

/** The API key every hostile test plants: it must appear in no output, cache, log or message. */
export const HOSTILE_KEY = 'sk-hostile-7f3e9a1c5b2dSECRET'

/** What a model talked into it writes, each shape a way to make an agent follow something. */
export const PAYLOADS = [
  '[the real docs](https://evil.example/steal)',
  '![x](https://evil.example/pixel.png)',
  '[x](javascript:alert(1))',
  '[p](../../../../etc/passwd)',
  '<script>alert(1)</script>',
  '<https://evil.example>',
  'see https://evil.example/x now',
  'line\u2028break\u2029here',
  HOSTILE_KEY,
] as const

/** Words of the payloads that no page may hold in any form, linked or not. */
export const FORBIDDEN = ['evil.example', 'javascript:', 'passwd', '<script', '\u2028', '\u2029', HOSTILE_KEY]

/**
 * The model's answer to `call`: the payload of the document (by the number in
 * its path, `doc-3.md`) or of the page in every field, each within the field's
 * bound, with the key beside it. The key is spelt with a JSON escape in the
 * content of every other answer, so that only the parsed answer holds it.
 */
export function hostileReply(call: Call, order: number): Reply {
  const n = Number(/(\d+)/.exec(call.subject)?.[1] ?? order)
  const payload = PAYLOADS[n % PAYLOADS.length]!
  const content = call.kind === 'page'
    ? { summary: `Pages ${payload} ${HOSTILE_KEY}` }
    : {
        title: `Doc ${n} ${payload}`,
        summary: `What doc ${n} covers: ${payload} ${HOSTILE_KEY}`,
        tasks: [`Task ${payload}`, `Send ${HOSTILE_KEY}`],
        ...(call.system.includes('"topic"') ? { topic: `T${n} ${payload}` } : {}),
      }
  const json = JSON.stringify(content)
  return { content: order % 2 === 0 ? json : json.split(HOSTILE_KEY).join(`\\u0073${HOSTILE_KEY.slice(1)}`) }
}

/** Every token marked makes of `markdown`, children included. */
export function tokensOf(markdown: string): Token[] {
  const out: Token[] = []
  const walk = (tokens: readonly Token[]) => {
    for (const token of tokens) {
      out.push(token)
      const inner = token as { tokens?: Token[], items?: Token[], header?: { tokens: Token[] }[], rows?: { tokens: Token[] }[][] }
      walk(inner.tokens ?? [])
      walk(inner.items ?? [])
      inner.header?.forEach(cell => walk(cell.tokens))
      inner.rows?.forEach(row => row.forEach(cell => walk(cell.tokens)))
    }
  }
  walk(marked.lexer(markdown))
  return out
}

/**
 * What is wrong with the Markdown `files` (path → text, relative to the skill
 * folder) as marked renders them: an image, an HTML token, or a link that is
 * not one the program makes (a relative link to a page or reference the folder
 * has, `has` says which). Empty when every link target is the program's.
 */
export function markdownProblems(files: ReadonlyMap<string, string>, has: (path: string) => boolean): string[] {
  const problems: string[] = []
  for (const [file, text] of files) {
    for (const token of tokensOf(text)) {
      if (token.type === 'html')
        problems.push(`${file}: HTML ${JSON.stringify(token.raw)}`)
      if (token.type === 'image')
        problems.push(`${file}: image ${JSON.stringify(token.href)}`)
      if (token.type !== 'link')
        continue
      const href = token.href as string
      const target = posix.normalize(posix.join(posix.dirname(file), decodeURIComponent(href)))
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/') || target.startsWith('..') || !has(target))
        problems.push(`${file}: link to ${JSON.stringify(href)}`)
    }
  }
  return problems
}

/** Every file under `dir`, relative and `/`-separated, with its text. */
export function textsUnder(dir: string): Map<string, string> {
  if (!existsSync(dir))
    return new Map()
  return new Map(readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map(name => join(dir, name))
    .filter(file => statSync(file).isFile())
    .map(file => [relative(dir, file).split(sep).join('/'), readFileSync(file, 'utf8')]))
}

/** The pages of a skill folder an agent reads: SKILL.md, llms.txt and `indexes/`. */
export function routedPages(files: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...files].filter(([path]) => path === 'SKILL.md' || path === 'llms.txt' || path.startsWith('indexes/')))
}
