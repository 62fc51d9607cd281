import { describe, expect, it } from 'vitest'
import { markdownSentences, trainingTexts } from '../../../src/knowledge/query-table/training'

describe('training texts of a query table', () => {
  it('takes headings and sentences, without code blocks, tables or Markdown marks', () => {
    const text = [
      '# View transitions',
      '',
      'Use `document.startViewTransition()` to animate. It works in [Chrome](https://example.com) 111. Older browsers skip it!',
      '',
      '```js',
      'document.startViewTransition(() => update())',
      '```',
      '',
      '| a | b |',
      '|---|---|',
      '',
      '## Cross-document transitions ##',
      '- Opt in with **CSS**.',
      '- Name the elements',
      '  that move.',
    ].join('\n')
    expect(markdownSentences(text)).toEqual([
      'View transitions',
      'Use document.startViewTransition() to animate.',
      'It works in Chrome 111.',
      'Older browsers skip it!',
      'Cross-document transitions',
      'Opt in with CSS.',
      'Name the elements that move.',
    ])
  })

  it('drops one-word and overlong texts and duplicates, and picks the same texts whatever the corpus\'s order', () => {
    const texts = ['# Forms\n\nForms.\n\nValidate the form input here.', '# Forms\n\nValidate the form input here.', `# Long\n\n${'word '.repeat(50)}`]
    expect(trainingTexts(texts).sort()).toEqual(['Validate the form input here.'])
    const many = Array.from({ length: 50 }, (_, i) => `Sentence number ${i} is here.`)
    const picked = trainingTexts(many, { maxTexts: 10 })
    expect(picked).toHaveLength(10)
    expect(trainingTexts([...many].reverse(), { maxTexts: 10 })).toEqual(picked)
  })
})
