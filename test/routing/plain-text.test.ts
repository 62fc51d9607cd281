// The one module that makes a model's (or a document's) words plain text
// before they reach a routed page: each shape a hostile answer takes, and
// what marked makes of the result.

import { describe, expect, it } from 'vitest'
import { escapeMarkdown, inertText } from '../../src/routing/plain-text'
import { tokensOf } from '../support/hostile-model'

/** What a page writes of a model's words. */
const markdownText = (text: string) => escapeMarkdown(inertText(text))

/** What a hostile model writes, each shape once. */
const HOSTILE: Record<string, [input: string, plain: string]> = {
  'a link': ['Read [the real docs](https://evil.example/steal) first.', 'Read the real docs first.'],
  'a link with a title': ['See [docs](https://evil.example "Docs") now', 'See docs now'],
  'an image (a tracking beacon)': ['Setup ![x](https://evil.example/pixel.png) guide', 'Setup x guide'],
  'a javascript: link': ['Click [x](javascript:alert(1)) here', 'Click x here'],
  'a path in link form': ['Open [p](../../../../etc/passwd) now', 'Open p now'],
  'a link in a link': ['[[a](https://evil.example/1)](https://evil.example/2) b', 'a b'],
  'raw HTML': ['Run <script>alert(1)</script> it', 'Run alert(1) it'],
  'an HTML comment': ['Hidden <!-- [x](https://evil.example) --> text', 'Hidden text'],
  'an unclosed HTML comment': ['Text <!-- hides the rest', 'Text'],
  'an autolink': ['Go to <https://evil.example> now', 'Go to now'],
  'a bare web address': ['Fetch https://evil.example/x today', 'Fetch today'],
  'a bare www address': ['Visit www.evil.example/x today', 'Visit today'],
  'an upper-case address': ['Fetch HTTPS://EVIL.EXAMPLE/x today', 'Fetch today'],
  'a mailto address': ['Mail mailto:thief@evil.example now', 'Mail now'],
  'a reference-style link': ['See [docs][1] here', 'See docs here'],
  'a reference definition': ['Text [1]: https://evil.example/def end', 'Text end'],
  'line and paragraph separators': ['One\u2028two\u2029three\u0085four', 'One two three four'],
  'control characters': ['A\u0000B\u0007C\u001BD\u009BE\tF\nG\rH', 'ABCDE F G H'],
  'bidi overrides and isolates': ['abc\u202Efed\u202C \u2066x\u2069 \u200Fy', 'abcfed x y'],
  'zero-width characters and a BOM': ['a\u200Bb\uFEFFc\u2060d', 'abcd'],
  'a lone surrogate': ['a\uD800b\uDC00c', 'abc'],
}

describe('inertText', () => {
  for (const [shape, [input, plain]] of Object.entries(HOSTILE)) {
    it(`takes out ${shape}`, () => {
      expect(inertText(input)).toBe(plain)
    })
  }

  it('keeps plain words, emphasis, identifiers, joiners and stray brackets as they are', () => {
    expect(inertText('Set max_tokens to 5 (or **more**) in a[0] for C# and 1 < 2 > 0')).toBe('Set max_tokens to 5 (or **more**) in a[0] for C# and 1 < 2 > 0')
    expect(inertText('می\u200Cخواهم')).toBe('می\u200Cخواهم')
  })

  it('is linear on runs of unclosed markup', () => {
    // Quadratic patterns would take minutes on these; the assertion is on what comes back, not on time.
    const runs = ['[a]('.repeat(20_000), '<!--'.repeat(20_000), '<'.repeat(50_000), '[x](('.repeat(20_000), 'a.'.repeat(100_000), 'www.'.repeat(50_000), '[a]'.repeat(50_000)]
    for (const run of runs)
      expect(inertText(run).length).toBeLessThanOrEqual(run.length)
  })
})

describe('escapeMarkdown of inertText', () => {
  const inputs = [
    ...Object.values(HOSTILE).map(([input]) => input),
    'a \\<https://evil.example\\> b',
    'thief@evil.example',
    '[x]: https://evil.example',
    '`code` ``more',
    '# heading',
    '> quote',
    '- item',
    '* item',
    '1986. a year',
    '2) second',
    '---',
    '___',
    '~~~',
    '```js',
    '\\',
    '[unclosed](',
    '&lt;script&gt;',
  ]

  it('leaves marked no link, image, HTML, code span or block of the model\'s making, at a line start or within a line', () => {
    for (const input of inputs) {
      const text = markdownText(input)
      for (const markdown of [text, `- [Title](../references/a.md): ${text} (about 3 tokens)`]) {
        const tokens = tokensOf(markdown)
        const links = tokens.filter(token => token.type === 'link' || token.type === 'image').map(token => (token as { href: string }).href)
        expect(links.filter(href => href !== '../references/a.md'), `${input} → ${markdown}`).toEqual([])
        expect(tokens.filter(token => ['html', 'codespan', 'code', 'heading', 'blockquote', 'hr', 'table'].includes(token.type)), `${input} → ${markdown}`).toEqual([])
      }
      expect(tokensOf(text).filter(token => token.type === 'list'), `${input} → ${text}`).toEqual([])
    }
  })

  it('shows the words as they were, escaped', () => {
    expect(markdownText('Use a[0] and b\\c with `x` at 1 < 2')).toBe('Use a\\[0\\] and b\\\\c with \\`x\\` at 1 \\< 2')
    expect(markdownText('1986. A year')).toBe('1986\\. A year')
    expect(markdownText('# Not a heading')).toBe('\\# Not a heading')
    expect(escapeMarkdown('backups/www.example.com_a.md')).toBe('backups/www.example.com_a.md')
  })
})
