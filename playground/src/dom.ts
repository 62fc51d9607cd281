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

/**
 * A number with thousands separators, as the page shows token counts. Integers are
 * grouped here: the first `toLocaleString` loads the browser's number formatting,
 * about 50 ms of main thread in the page's startup (a CPU profile of the playground).
 */
export function count(value: number): string {
  return Number.isSafeInteger(value) ? String(value).replace(/\B(?=(\d{3})+$)/g, ',') : value.toLocaleString('en-US')
}
