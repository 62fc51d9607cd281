// The activation simulator: a message, touched paths and an active context go through
// createActivation over the registry, as an agent's session would send them; the page
// shows which dormant skills activate and why (the log), the listing that would go into
// the prompt against a budget, and the tokens saved (stats()).

import type { Activated, RegistrySkill } from 'unplugin-skill-kit/runtime'
import { createActivation, onSkillUpdate } from 'unplugin-skill-kit/runtime'
import { count, fill, h } from './dom'
import { skills, triggerSummary } from './skills'

/** The session's working folder: paths are given relative to it. */
const CWD = '/project'

interface Scenario { label: string, message: string, paths: string, context: string, budget: number }

export const SCENARIOS: Scenario[] = [
  { label: 'Start of a session: nothing observed yet', message: '', paths: '', context: '', budget: 1500 },
  { label: 'A database question', message: 'How do I add a shipped_at column to the orders table without locking it? It is a schema migration on our production database.', paths: '', context: '', budget: 1500 },
  { label: 'Editing a stylesheet and a migration', message: 'The cards overflow on phones.', paths: 'src/styles/cards.css\nmigrations/0042_add_shipped_at.sql', context: '', budget: 1500 },
  { label: 'An accessibility review', message: 'Check the search page with a screen reader: are the results announced?', paths: 'src/search.ts', context: '', budget: 1500 },
  { label: 'An open incident (project code)', message: 'Checkout is slow since the deploy.', paths: '', context: '# Active context\n\nIncident INC042: checkout latency, opened 14:02 UTC.', budget: 1500 },
  { label: 'Everything at once, on a tight budget', message: 'Database migration, a CSS grid layout and an a11y pass.', paths: 'styles/main.css', context: 'INC042', budget: 500 },
]

interface Inputs { message: HTMLTextAreaElement, paths: HTMLTextAreaElement, context: HTMLTextAreaElement, budget: HTMLInputElement, scenario: HTMLSelectElement }

function inputs(): Inputs {
  const get = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
  return { message: get('act-message'), paths: get('act-paths'), context: get('act-context'), budget: get('act-budget'), scenario: get('act-scenario') }
}

function why(activated: Activated<RegistrySkill> | undefined, skill: RegistrySkill, active: boolean): string {
  if (activated)
    return `${activated.trigger.kind}: ${activated.trigger.value} (matched “${activated.trigger.matched}”)`
  return active ? 'listed from the start' : triggerSummary(skill.triggers)
}

/** A new session over the registry, fed the inputs; renders its outcome. */
function simulate(el: Inputs): void {
  const log: string[] = []
  const activation = createActivation(skills, { cwd: CWD, log: line => log.push(line) })
  const activated = [
    ...activation.observeContext(el.context.value),
    ...activation.observeMessage(el.message.value),
    ...activation.observePaths(el.paths.value.split('\n').map(p => p.trim()).filter(Boolean)),
  ]
  const budget = Math.max(0, Number(el.budget.value) || 0)
  const listing = activation.listing({ budgetChars: budget })
  const stats = activation.stats()

  fill(document.getElementById('act-log')!, ...(log.length > 0 ? log.map(line => h('li', {}, h('code', {}, line))) : [h('li', { className: 'muted' }, 'No skill activated.')]))
  fill(document.getElementById('act-skills')!, ...skills.map((skill) => {
    const active = activation.isActive(skill.name)
    const hit = activated.find(a => a.skill === skill)
    return h('tr', { dataset: { state: hit ? 'activated' : active ? 'active' : 'dormant' } },
      h('th', { scope: 'row' }, skill.name),
      h('td', {}, hit ? 'activated' : active ? 'active' : 'dormant'),
      h('td', {}, why(hit, skill, active)),
    )
  }))
  const listingEl = document.getElementById('act-listing')!
  listingEl.textContent = listing === '' ? '(empty)' : listing
  const over = listing.length > budget
  fill(document.getElementById('act-stats')!,
    h('li', { className: over ? 'error' : '' }, `Listing: ${count(listing.length)} characters of a ${count(budget)}-character budget${over ? ' (over: names always stay)' : ''}.`),
    h('li', {}, `Skills: ${stats.active} active, ${stats.dormant} dormant, of ${stats.skills}.`),
    h('li', {}, `Tokens: ${count(stats.listingTokens)} listed instead of ${count(stats.allTokens)} for every skill: ${count(stats.savedTokens)} saved.`),
  )
  document.getElementById('activation-output')!.dataset.run = String(Number(document.getElementById('activation-output')!.dataset.run ?? 0) + 1)
}

export function setupActivation(): void {
  const el = inputs()
  el.scenario.append(...SCENARIOS.map((scenario, i) => h('option', { value: String(i) }, scenario.label)))
  const run = () => simulate(el)
  el.scenario.addEventListener('change', () => {
    const scenario = SCENARIOS[Number(el.scenario.value)]!
    el.message.value = scenario.message
    el.paths.value = scenario.paths
    el.context.value = scenario.context
    el.budget.value = String(scenario.budget)
    run()
  })
  for (const input of [el.message, el.paths, el.context, el.budget])
    input.addEventListener('input', run)
  onSkillUpdate(run)
  run()
}
