import type { RoutedSkill } from '../../routing/layout'

const json = (value: unknown) => JSON.stringify(value)

/**
 * The module of routed index pages: `skill`, `pages`, `catalog`, `llmsTxt`,
 * `cards`, the same as the default export, and `onUpdate`. In the Vite dev
 * server (`hot`) it accepts its own updates: the first instance, the one the
 * app imported, takes each new version's values into its own bindings and
 * objects (kept in `hot.data`, which outlives every version), then calls the
 * `onUpdate` handlers. Elsewhere `onUpdate` never calls them.
 */
export function generateRoutesModule(routes: RoutedSkill, hot: boolean): string {
  const binding = hot ? 'let' : 'const'
  return [
    `export ${binding} skill = ${json(routes.skill)}`,
    `export const pages = ${json(routes.pages)}`,
    `export const catalog = ${json(routes.catalog)}`,
    `export ${binding} llmsTxt = ${json(routes.llmsTxt)}`,
    `export const cards = ${json(routes.cards)}`,
    'const routes = { skill, pages, catalog, llmsTxt, cards }',
    'export default routes',
    ...(hot ? HOT_LINES : COLD_LINES),
    '',
  ].join('\n')
}

/** A build never updates: handlers are never called. */
const COLD_LINES = [
  'export function onUpdate() {',
  '  return () => {}',
  '}',
]

const HOT_LINES = [
  'const handlers = new Set()',
  'export function onUpdate(handler) {',
  '  handlers.add(handler)',
  '  return () => {',
  '    handlers.delete(handler)',
  '  }',
  '}',
  // The objects keep their identity (an app may hold `pages`); strings are live bindings.
  'function swap(next) {',
  '  skill = next.skill',
  '  llmsTxt = next.llmsTxt',
  '  for (const [own, fresh] of [[pages, next.pages], [catalog, next.catalog], [cards, next.cards]]) {',
  '    for (const key of Object.keys(own))',
  '      delete own[key]',
  '    Object.assign(own, fresh)',
  '  }',
  '  Object.assign(routes, { skill, llmsTxt })',
  '  for (const handler of handlers)',
  '    handler(routes)',
  '}',
  'if (import.meta.hot) {',
  '  import.meta.hot.data.swap ??= swap',
  '  import.meta.hot.accept((next) => {',
  '    if (next)',
  '      import.meta.hot.data.swap(next)',
  '  })',
  '}',
]
