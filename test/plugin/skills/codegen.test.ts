import type { CompiledSkill } from '../../../src/skill/compile'
import { describe, expect, it } from 'vitest'
import { generateModule } from '../../../src/plugin/skills/codegen'

const context = { runtime: () => 'unplugin-skill-kit/runtime', relativize: (file: string) => file }

/** The module's default export, evaluated as a bundler would read it. */
function exported(code: string): unknown {
  expect(code.startsWith('export default ')).toBe(true)
  return new Function(`return ${code.slice('export default '.length)}`)()
}

function coverModule(cover: string): string {
  const skill = { cover, mode: 'progressive', name: 'x', sections: [{ id: 'rules', content: cover }] } as unknown as CompiledSkill
  const generated = generateModule(skill, { kind: 'cover' }, context)
  const section = generateModule(skill, { kind: 'section', id: 'rules' }, context)
  if (!('code' in generated) || !('code' in section))
    throw new Error('no code')
  expect(section.code).toBe(generated.code)
  return generated.code
}

describe('text modules (?cover, ?section=)', () => {
  const texts = [
    '',
    'Plain text.\n\n## Rules {#rules}\n\n- one\n- two',
    'Run `npm test`, then ```js\nconst a = `b${c}`\n```',
    'Prices: $5, ${HOME}, $${x}, {$}, \\${y}, $',
    'Backslashes: \\ \\\\ \\n \\u0041 \\x41 \\1 \\0 \\` and a trailing one \\',
    'Tabs\tand separators \u2028 \u2029 and é, 日本, 😀',
    'CRLF\r\nand a lone CR\r.',
    'Controls \u0000 \u0001 \u001B[31m \u007F',
    'A lone surrogate \uD800 and a reversed pair \uDE00\uD83D',
  ]

  it('exports exactly the text, whatever it holds', () => {
    for (const text of texts)
      expect(exported(coverModule(text))).toBe(text)
  })

  it('writes text as a template literal, and as JSON what a template literal would not keep verbatim', () => {
    expect(coverModule('a `b` ${c} \\d\ne')).toBe('export default `a \\`b\\` \\${c} \\\\d\ne`\n')
    expect(coverModule('😀 and \u2028')).toBe('export default `😀 and \u2028`\n')
    expect(coverModule('a\rb')).toBe('export default "a\\rb"\n')
    expect(coverModule('a\r\nb')).toBe('export default "a\\r\\nb"\n')
    expect(coverModule('\uD800')).toBe('export default "\\ud800"\n')
    expect(coverModule('😀\uDE00')).toBe('export default "😀\\ude00"\n')
    expect(coverModule('a\u0000\u001Bb')).toBe('export default `a\u0000\u001Bb`\n')
  })
})
