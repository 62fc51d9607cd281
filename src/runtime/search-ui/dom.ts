// The one way the component makes elements. Text goes in as text nodes only:
// titles, headings and excerpts come from documents, which may be hostile, so
// nothing here ever parses a string as HTML.

/** Attributes set with setAttribute (strings), properties-free on purpose. */
export type Attributes = Record<string, string | undefined>

/** A `tag` element with `attributes` (undefined ones left out) and `children` (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined)
      element.setAttribute(name, value)
  }
  element.append(...children)
  return element
}
