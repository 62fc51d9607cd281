// A heading's text as a reader sees it and its anchor as the site's renderer
// makes it, so that a sub-result links to the heading the page really has.
// Zero-dependency: the build (document titles) and the browser (sub-results)
// share it.

import { inlineText } from './inline'

/** Which renderer's ids the anchors follow: GitHub's (github-slugger, also Astro's) or VitePress's. */
export type AnchorStyle = 'github' | 'vitepress'

/** An explicit id at a heading's end, as markdown-it-attrs and Astro write it: `## Install {#setup}`. */
const EXPLICIT_ID = /\{#([^\s{}]{1,300})\}[ \t]*$/

/** The id a heading sets itself (`{#setup}`), if any. */
export function explicitAnchor(heading: string): string | undefined {
  return EXPLICIT_ID.exec(heading)?.[1]
}

/**
 * The text of a Markdown heading as it renders: no `{#id}`, code spans'
 * contents kept as written, emphasis markers, HTML tags and link targets
 * dropped (`` [`<dialog>`](/x) **now** `` → `<dialog> now`).
 */
export function plainHeading(heading: string): string {
  return inlineText(heading.replace(EXPLICIT_ID, '')).replace(/\s+/g, ' ').trim()
}

// VitePress's slugify (@mdit-vue/shared), which its markdown-it-anchor uses.
// eslint-disable-next-line no-control-regex
const VITEPRESS_CONTROL = /[\u0000-\u001F]/g
const VITEPRESS_SPECIAL = /[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g
const COMBINING = /[\u0300-\u036F]/g

/**
 * The slug of a heading's plain text: github-slugger's (lowercase, every
 * character but letters, marks, numbers, `_`, `-` and spaces dropped, spaces
 * to `-`) or VitePress's (NFKD without accents, runs of punctuation and
 * spaces to one `-`, trimmed, a leading digit prefixed with `_`, lowercase).
 */
export function slugify(text: string, style: AnchorStyle): string {
  if (style === 'vitepress') {
    return text.normalize('NFKD').replace(COMBINING, '').replace(VITEPRESS_CONTROL, '').replace(VITEPRESS_SPECIAL, '-')
      .replace(/-{2,}/g, '-').replace(/^-+|-+$/g, '').replace(/^(\d)/, '_$1').toLowerCase()
  }
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-')
}

/**
 * The anchors of a page's headings, in order: each heading's explicit id, else
 * its slug, a repeated slug suffixed `-1`, `-2`… as both renderers do.
 */
export function headingAnchors(headings: readonly string[], style: AnchorStyle): string[] {
  // github-slugger's bookkeeping (markdown-it-anchor's gives the same ids): a slug taken counts its repeats.
  const occurrences = new Map<string, number>()
  return headings.map((heading) => {
    const base = explicitAnchor(heading) ?? slugify(plainHeading(heading), style)
    let slug = base
    while (occurrences.has(slug)) {
      const n = occurrences.get(base)! + 1
      occurrences.set(base, n)
      slug = `${base}-${n}`
    }
    occurrences.set(slug, 0)
    return slug
  })
}
