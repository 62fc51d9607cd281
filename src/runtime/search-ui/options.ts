// Rendering results as options of the combobox's listbox: one option per
// document, then one per matching heading (indented), each a link whose href
// passed safeHref. An option's accessible name is its title (and, for a
// heading, its document's title); the excerpt describes it.

import type { SearchUIExcerpt, SearchUIResult, SearchUISubResult } from './types'
import { h } from './dom'
import { safeHref } from './url'

/** What an option stands for, looked up when it is chosen. */
export interface OptionTarget {
  /** Stable across rankings: the active option is kept by it. */
  key: string
  /** A recent search to run again. */
  query?: string
  result?: SearchUIResult
  subResult?: SearchUISubResult
}

/** The excerpt's text with its marked ranges in `<mark>` (ranges out of bounds or out of order are skipped). */
export function excerptNode(excerpt: SearchUIExcerpt, id: string): HTMLSpanElement {
  const span = h('span', { class: 'excerpt', id })
  let at = 0
  for (const [start, end] of excerpt.marks) {
    if (start < at || end <= start || end > excerpt.text.length)
      continue
    span.append(excerpt.text.slice(at, start), h('mark', {}, excerpt.text.slice(start, end)))
    at = end
  }
  span.append(excerpt.text.slice(at))
  return span
}

/** Creates option elements with IDs `prefix-<n>`, and remembers what each stands for. */
export class OptionFactory {
  readonly targets = new Map<string, OptionTarget>()
  private count = 0

  constructor(private readonly prefix: string, private readonly base: () => string) {}

  /** A link option to `url` (a disabled option when the URL is not a web link). */
  private option(target: OptionTarget, url: string | undefined, className: string): HTMLAnchorElement {
    const id = `${this.prefix}-${this.count++}`
    const href = url === undefined ? undefined : safeHref(url, this.base())
    const option = h('a', {
      'role': 'option',
      id,
      'class': className,
      href,
      'tabindex': '-1',
      'aria-selected': 'false',
      'aria-disabled': url !== undefined && href === undefined ? 'true' : undefined,
      'data-key': target.key,
    })
    this.targets.set(id, target)
    return option
  }

  /** The options of one result: the document, then its headings. */
  result(result: SearchUIResult): HTMLAnchorElement[] {
    const main = this.option({ key: result.id, result }, result.url, 'result')
    const titleId = `${main.id}-t`
    main.append(h('span', { class: 'title', id: titleId }, result.title))
    if (result.category)
      main.append(h('span', { class: 'path' }, result.category))
    describe(main, result.excerpt)
    main.setAttribute('aria-labelledby', titleId)
    const subs = result.subResults.slice(0, 3).map(sub => {
      const option = this.option({ key: `${result.id}\n${sub.url}`, result, subResult: sub }, sub.url, 'result sub')
      option.append(h('span', { class: 'title', id: `${option.id}-t` }, sub.title))
      describe(option, sub.excerpt)
      option.setAttribute('aria-labelledby', `${option.id}-t ${titleId}`)
      return option
    })
    return [main, ...subs]
  }

  /** An option that runs a recent search again. */
  recent(query: string): HTMLAnchorElement {
    const option = this.option({ key: `\0recent\n${query}`, query }, undefined, 'recent')
    option.append(query)
    return option
  }

  /** Forgets the options of the previous rendering (their elements are gone). */
  reset(): void {
    this.targets.clear()
  }
}

function describe(option: HTMLElement, excerpt: SearchUIExcerpt | undefined): void {
  if (!excerpt || !excerpt.text)
    return
  const id = `${option.id}-d`
  option.append(excerptNode(excerpt, id))
  option.setAttribute('aria-describedby', id)
}
