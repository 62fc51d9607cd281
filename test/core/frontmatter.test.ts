import { describe, expect, it } from 'vitest'
import { splitFrontmatter } from '../../src/core/frontmatter'

describe('splitFrontmatter', () => {
  it('splits YAML from the body with file line numbers', () => {
    expect(splitFrontmatter('---\nname: a\ndescription: b\n---\n# Body\ntext')).toEqual({
      yaml: 'name: a\ndescription: b',
      yamlLine: 2,
      body: '# Body\ntext',
      bodyLine: 5,
      unclosed: false,
    })
  })

  it('normalises CRLF and a byte-order mark, and accepts "..." as the closing fence', () => {
    expect(splitFrontmatter('\uFEFF---\r\nname: a\r\n...\r\nbody\r\n')).toMatchObject({ yaml: 'name: a', body: 'body\n', bodyLine: 4 })
  })

  it('handles empty frontmatter and a file that ends at the fence', () => {
    expect(splitFrontmatter('---\n---')).toMatchObject({ yaml: '', body: '', bodyLine: 3, unclosed: false })
    expect(splitFrontmatter('---\n---\nbody')).toMatchObject({ yaml: '', body: 'body', bodyLine: 3 })
  })

  it('reports an unclosed fence and a file without frontmatter', () => {
    expect(splitFrontmatter('---\nname: a\n')).toMatchObject({ yaml: 'name: a\n', body: '', unclosed: true })
    expect(splitFrontmatter('---')).toMatchObject({ yaml: '', unclosed: true })
    expect(splitFrontmatter('# Title\n---\n')).toEqual({ yaml: undefined, yamlLine: 1, body: '# Title\n---\n', bodyLine: 1, unclosed: false })
  })

  it('does not close on a longer dash line', () => {
    expect(splitFrontmatter('---\na: ----\n----\n---\nbody')).toMatchObject({ yaml: 'a: ----\n----', bodyLine: 5 })
  })
})
