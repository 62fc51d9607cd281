// Heading anchors as GitHub (github-slugger) and VitePress (@mdit-vue/shared's slugify) make them,
// and a body's sections as the search UI cuts them.

import { describe, expect, it } from 'vitest'
import { headingAnchors, plainHeading, slugify } from '../../../src/runtime/search-ui/anchors'
import { bodySections, MAX_SECTIONS } from '../../../src/runtime/search-ui/sections'

describe('heading anchors', () => {
  it('slugs as github-slugger does', () => {
    expect(['Hello World', 'foo.bar', 'C++', 'I ♥ unicode', 'Привет мир', 'API: v2.0 — what\'s new', 'snake_case', 'Café & crème', '1. Install']
      .map(text => slugify(text, 'github'))).toEqual(['hello-world', 'foobar', 'c', 'i--unicode', 'привет-мир', 'api-v20--whats-new', 'snake_case', 'café--crème', '1-install'])
  })

  it('slugs as VitePress does', () => {
    expect(['Hello World', 'foo.bar', 'C++', 'API: v2.0 — what\'s new', 'snake_case', 'Café & crème', '1. Install']
      .map(text => slugify(text, 'vitepress'))).toEqual(['hello-world', 'foo-bar', 'c', 'api-v2-0-—-what-s-new', 'snake-case', 'cafe-creme', '_1-install'])
  })

  it('numbers repeats as both renderers do, and takes an explicit {#id} as written', () => {
    expect(headingAnchors(['foo', 'foo', 'foo-1', 'Setup {#install}', '`<dialog>` **now**'], 'github')).toEqual(['foo', 'foo-1', 'foo-1-1', 'install', 'dialog-now'])
    expect(plainHeading('[`<dialog>`](/x) **now** {#now}')).toBe('<dialog> now')
    // Underscores inside a word are not emphasis (CommonMark): identifiers stay whole.
    expect(plainHeading('Set max_line_length or _emphasis_')).toBe('Set max_line_length or emphasis')
  })
})

describe('bodySections', () => {
  it('cuts at the first 1,000 headings only: the rest of the body is the last section\'s text', () => {
    const body = Array.from({ length: MAX_SECTIONS + 5 }, (_, i) => `## H${i}\n\ntext ${i}`).join('\n\n')
    const sections = bodySections(body)
    expect(sections).toHaveLength(MAX_SECTIONS)
    expect(sections.at(-1)!.heading).toBe(`H${MAX_SECTIONS - 1}`)
    expect(sections.at(-1)!.text).toContain(`## H${MAX_SECTIONS + 4}`)
  })

  it('cuts at ATX and setext headings, never inside fenced code', () => {
    const body = 'Intro.\n\n# Title #\n\nText.\n\n```sh\n# comment\n```\n\nSetext\n------\n\nMore.\n\n---\n\nAfter a rule.\n~~~\n## no\n~~~\n'
    expect(bodySections(body).map(s => [s.heading, s.level, s.text.split('\n')[0]])).toEqual([
      [undefined, 0, 'Intro.'],
      ['Title', 1, 'Text.'],
      ['Setext', 2, 'More.'],
    ])
  })
})
