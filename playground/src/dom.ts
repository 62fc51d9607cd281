/** `document.createElement` with properties and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> & { dataset?: Record<string, string> } = {},
  ...children: (Node | string | false | null | undefined)[]
): HTMLElementTagNameMap[K] {
  const { dataset, ...rest } = props
  const element = Object.assign(document.createElement(tag), rest)
  if (dataset)
    Object.assign(element.dataset, dataset)
  element.append(...children.filter((c): c is Node | string => c !== false && c !== null && c !== undefined))
  return element
}

/** Replaces every child of `parent`. */
export function fill(parent: Element, ...children: (Node | string)[]): void {
  parent.replaceChildren(...children)
}

/** A number with thousands separators, as the page shows token counts. */
export function count(value: number): string {
  return value.toLocaleString('en-US')
}
