// Excerpts: Markdown as the text a reader sees, and the passage with the most of the query's terms.

import { describe, expect, it } from 'vitest'
import { excerptOf, MAX_SECTION_CHARS, plainText, queryMarks, textWords } from '../../../src/runtime/search-ui/excerpt'

const excerpt = (text: string, query: string, length = 60) => {
  const result = excerptOf(text, textWords(text), queryMarks(query), length)
  return { text: result.text, marked: result.marks.map(([a, b]) => result.text.slice(a, b)) }
}

describe('excerpts', () => {
  it('read a section\'s first 32,768 characters only, however long it is', () => {
    const section = `${'word '.repeat(MAX_SECTION_CHARS / 4)}beyond`
    expect(plainText(section).length).toBeLessThanOrEqual(MAX_SECTION_CHARS)
    expect(plainText(section)).not.toContain('beyond')
    expect(plainText(section.slice(-200))).toContain('beyond')
  })

  it('reads Markdown as text: code kept as written, markup, tags, quotes, lists and table rules dropped', () => {
    expect(plainText('> **Note:** use [`<dialog>`](/d) with <kbd>Esc</kbd> &amp; `a_b`\n\n- [x] one\n| a | b |\n| --- | --- |\n```js\nconst x = 1 // *not* emphasis\n```')).toBe('Note: use <dialog> with Esc & a_b one a b const x = 1 // *not* emphasis')
  })

  it('chooses the window with the most distinct terms, then the most matches, and cuts at words', () => {
    const text = `The dialog opens. ${'Filler words here. '.repeat(10)}To animate a dialog, animate its entry. ${'More filler. '.repeat(10)}`
    expect(excerpt(text, 'animate dialog')).toEqual({ text: '…here. Filler words here. To animate a dialog, animate its…', marked: ['animate', 'dialog', 'animate'] })
    expect(excerpt('Short text without the words.', 'dialog')).toEqual({ text: 'Short text without the words.', marked: [] })
  })
})
