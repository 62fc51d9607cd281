// The registry (virtual:skill-kit/skills): every skill with its token counts; a skill
// opens its cover and section index, and a section is read on demand (readSection),
// with what that read costs against loading the whole body.

import type { RegistrySkill, SkillTriggers } from 'unplugin-skill-kit/runtime'
import skills from 'virtual:skill-kit/skills'
import { estimateTokens, onSkillUpdate } from 'unplugin-skill-kit/runtime'
import { count, fill, h } from './dom'
import { showMarkdown } from './lazy-markdown'

export { skills }

/** What activates a skill, in a few words. */
export function triggerSummary(triggers: SkillTriggers | null): string {
  if (!triggers || triggers.alwaysActive)
    return 'always listed'
  const parts = [
    triggers.topics.length > 0 && `topics: ${triggers.topics.join(', ')}`,
    triggers.paths.length > 0 && `paths: ${triggers.paths.join(', ')}`,
    triggers.projects.length > 0 && `projects: ${triggers.projects.join(', ')}`,
  ].filter(Boolean)
  return `dormant until ${parts.join('; ')}`
}

function skillItem(skill: RegistrySkill, open: string | undefined): HTMLLIElement {
  const { listing, cover, body } = skill.tokens
  return h('li', { className: open === skill.name ? 'current' : '' },
    h('a', { href: `#skills/${encodeURIComponent(skill.name)}`, ariaCurrent: open === skill.name ? 'page' : null }, skill.name),
    ' ',
    h('span', { className: `mode mode-${skill.mode}` }, skill.mode),
    h('p', { className: 'description' }, skill.description),
    h('p', { className: 'muted tokens' }, `${count(listing)} tokens listed · ${count(cover)} cover · ${count(body)} body · ${triggerSummary(skill.triggers)}`),
  )
}

function sectionIndex(skill: RegistrySkill, section: string | undefined): HTMLElement {
  if (skill.sections.length === 0)
    return h('p', { className: 'muted' }, `A ${skill.mode} skill has no sections: its cover is the whole body.`)
  return h('ul', { className: 'index' }, ...skill.sections.map(entry => h('li', { className: `level-${entry.level}` },
    h('a', {
      href: `#skills/${encodeURIComponent(skill.name)}/${encodeURIComponent(entry.id)}`,
      ariaCurrent: entry.id === section ? 'true' : null,
    }, entry.id),
    ` ${entry.title}`,
  )))
}

/** Reads `id` of `skill` into `into`, with its cost. */
async function readInto(skill: RegistrySkill, id: string, into: HTMLElement): Promise<void> {
  delete into.dataset.section
  let text: string
  try {
    text = await skill.readSection(id)
  }
  catch (error) {
    fill(into, h('p', { className: 'error' }, (error as Error).message))
    return
  }
  const tokens = estimateTokens(text)
  const share = skill.tokens.body > 0 ? Math.round(100 * tokens / skill.tokens.body) : 100
  const body = h('div', { className: 'markdown' })
  fill(into,
    h('p', { className: 'cost' }, `readSection('${id}'): about ${count(tokens)} tokens, against ${count(skill.tokens.body)} for the whole body (${share} %).`),
    body,
  )
  await showMarkdown(body, text)
  into.dataset.section = id
}

/** The open skill: cover, section index and the section read, if any. */
async function showSkill(view: HTMLElement, name: string, section: string | undefined): Promise<void> {
  delete view.dataset.skill
  const skill = skills.find(s => s.name === name)
  if (!skill) {
    fill(view, h('p', { className: 'error' }, `No skill is named "${name}".`))
    return
  }
  const cover = h('div', { className: 'markdown cover' })
  const read = h('div', { className: 'section-read', ariaLive: 'polite' }, section ? '' : h('p', { className: 'muted' }, 'Choose a section to read it.'))
  const title = h('h3', { tabIndex: -1 }, skill.name, ' ', h('span', { className: `mode mode-${skill.mode}` }, skill.mode))
  fill(view,
    title,
    h('p', { className: 'description' }, skill.description),
    h('p', { className: 'muted' }, `${skill.file} · cover ${count(skill.tokens.cover)} tokens · body ${count(skill.tokens.body)} tokens`),
    h('div', { className: 'columns' },
      h('section', { ariaLabel: 'Sections' }, h('h4', {}, 'Sections'), sectionIndex(skill, section), read),
      h('section', { ariaLabel: 'Cover' }, h('h4', {}, 'Cover (what load() returns)'), cover),
    ),
  )
  const { cover: text } = await skill.load()
  await showMarkdown(cover, text)
  if (section)
    await readInto(skill, section, read)
  view.dataset.skill = skill.name
}

let current: { name?: string, section?: string } = {}

function render(): void {
  fill(document.getElementById('skills-list')!, ...skills.map(skill => skillItem(skill, current.name)))
  const view = document.getElementById('skill-view')!
  view.hidden = current.name === undefined
  if (current.name !== undefined)
    void showSkill(view, current.name, current.section)
}

/** Shows the registry, with `name` (and its section `section`) open. */
export function showSkills(name?: string, section?: string): void {
  current = { name, section }
  render()
}

export function setupSkills(): void {
  document.getElementById('skills-count')!.textContent = `${skills.length}`
  // The registry is patched in place by the dev server; this re-renders what is open.
  onSkillUpdate(() => {
    document.getElementById('skills-count')!.textContent = `${skills.length}`
    render()
  })
  render()
}
