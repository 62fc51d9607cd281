import { describe, expect, it } from 'vitest'
import { excerptForMessage, quoteForMessage, redactJson, redactSecret } from '../../src/runtime/redact'

const KEY = 'sk-test-0123456789abcdef'

describe('redactSecret', () => {
  it('replaces every occurrence of the key, bearer tokens included', () => {
    expect(redactSecret(`bad key ${KEY}; Authorization: Bearer ${KEY}`, KEY)).toBe('bad key [redacted]; Authorization: Bearer [redacted]')
  })

  it('leaves text alone without a key', () => {
    expect(redactSecret('Bearer x', undefined)).toBe('Bearer x')
    expect(redactSecret('Bearer x', '')).toBe('Bearer x')
  })
})

describe('redactJson', () => {
  it('redacts every string of a JSON value, keys included', () => {
    const value = { summary: `see ${KEY}`, tasks: [`use ${KEY}`, 3], [KEY]: { deep: KEY }, n: null }
    const redacted = redactJson(value, KEY)
    expect(JSON.stringify(redacted)).not.toContain(KEY)
    expect(redacted).toEqual({ 'summary': 'see [redacted]', 'tasks': ['use [redacted]', 3], '[redacted]': { deep: '[redacted]' }, 'n': null })
  })
})

describe('quoteForMessage', () => {
  it('bounds a long value and redacts the key', () => {
    const quoted = quoteForMessage(`${KEY}${'x'.repeat(10_000)}`, KEY, 40)
    expect(quoted).toBe(`"[redacted]${'x'.repeat(29)}…`)
  })

  it('quotes values JSON cannot spell', () => {
    expect(quoteForMessage(undefined)).toBe('undefined')
    expect(quoteForMessage(10n)).toBe('10')
  })
})

describe('excerptForMessage', () => {
  it('works on the head only, and redacts a key across the cut whole', () => {
    const text = `${'a'.repeat(295)}${KEY}${' tail'.repeat(1_000_000)}`
    const excerpt = excerptForMessage(text, KEY, 300)
    expect(excerpt).toBe(`${'a'.repeat(295)}[reda…`)
    expect(excerpt).not.toContain(KEY.slice(0, 5))
  })

  it('flattens whitespace and marks a cut only where there is one', () => {
    expect(excerptForMessage('a\n\n b', KEY, 300)).toBe('a b')
    expect(excerptForMessage('x'.repeat(301), KEY, 300)).toBe(`${'x'.repeat(300)}…`)
  })
})
