// In an app that installs the package: /// <reference types="unplugin-skill-kit/client" />
// Inside this repo TypeScript cannot resolve a type reference to the package's own name, so point at the file.
/// <reference path="../client.d.ts" />
import type { Skill } from 'unplugin-skill-kit/runtime'
import commitMessages from './skills/commit-messages/SKILL.md'
import gitRelease from './skills/git-release/SKILL.md'
import pdfForms from './skills/pdf-forms/SKILL.md'

const skills: Skill[] = [pdfForms, gitRelease, commitMessages]

/** `document.createElement` with properties and children. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const element = Object.assign(document.createElement(tag), props)
  element.append(...children)
  return element
}

function renderSkill(skill: Skill): HTMLElement {
  const output = h('pre', { className: 'section' }, 'Click a section ID to read it.')

  const read = (id: string, button: HTMLButtonElement) => {
    for (const active of card.querySelectorAll('button.active'))
      active.classList.remove('active')
    button.classList.add('active')
    try {
      output.textContent = skill.readSection(id)
      output.classList.remove('error')
    }
    catch (error) {
      output.textContent = (error as Error).message
      output.classList.add('error')
    }
  }

  const index = skill.sections.length > 0
    ? h('ul', { className: 'index' }, ...skill.sections.map((section) => {
        const button = h('button', { type: 'button', textContent: section.id })
        button.addEventListener('click', () => read(section.id, button))
        return h('li', { className: `level-${section.level}` }, button, ` ${section.title}`)
      }))
    : h('p', { className: 'muted' }, `A ${skill.mode} skill has no sections: its cover is the whole body.`)

  const card = h('article', { className: 'skill' },
    h('h2', {}, skill.name, ' ', h('span', { className: `mode mode-${skill.mode}` }, skill.mode)),
    h('p', { className: 'description' }, skill.description),
    skill.resources.length > 0 ? h('p', { className: 'muted' }, `Bundled files: ${skill.resources.join(', ')}`) : '',
    h('div', { className: 'columns' },
      h('section', {}, h('h3', {}, 'Sections'), index, output),
      h('section', {}, h('h3', {}, 'Cover'), h('pre', { className: 'cover' }, skill.cover)),
    ),
  )
  return card
}

document.querySelector('#skills')!.append(...skills.map(renderSkill))
