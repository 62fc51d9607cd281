import { describe, expect, it } from 'vitest'
import { porterStem } from '../../../../src/runtime/knowledge/lexical/stemmer'

describe('porterStem', () => {
  // The examples of Porter's paper ("An algorithm for suffix stripping", 1980), step by step.
  it.each(Object.entries({
    caresses: 'caress', ponies: 'poni', ties: 'ti', caress: 'caress', cats: 'cat',
    feed: 'feed', agreed: 'agre', plastered: 'plaster', bled: 'bled', motoring: 'motor', sing: 'sing',
    conflated: 'conflat', troubled: 'troubl', sized: 'size', hopping: 'hop', tanned: 'tan', falling: 'fall',
    hissing: 'hiss', fizzed: 'fizz', failing: 'fail', filing: 'file', happy: 'happi', sky: 'sky',
    relational: 'relat', conditional: 'condit', rational: 'ration', valenci: 'valenc', digitizer: 'digit',
    conformabli: 'conform', radicalli: 'radic', differentli: 'differ', vileli: 'vile', analogousli: 'analog',
    vietnamization: 'vietnam', predication: 'predic', operator: 'oper', feudalism: 'feudal', decisiveness: 'decis',
    hopefulness: 'hope', callousness: 'callous', formaliti: 'formal', sensitiviti: 'sensit', sensibiliti: 'sensibl',
    triplicate: 'triplic', formative: 'form', formalize: 'formal', electriciti: 'electr', electrical: 'electr',
    hopeful: 'hope', goodness: 'good', revival: 'reviv', allowance: 'allow', inference: 'infer', airliner: 'airlin',
    gyroscopic: 'gyroscop', adjustable: 'adjust', defensible: 'defens', irritant: 'irrit', replacement: 'replac',
    adjustment: 'adjust', dependent: 'depend', adoption: 'adopt', homologou: 'homolog', communism: 'commun',
    activate: 'activ', angulariti: 'angular', homologous: 'homolog', effective: 'effect', bowdlerize: 'bowdler',
    probate: 'probat', rate: 'rate', cease: 'ceas', controll: 'control', roll: 'roll',
  }))('%s → %s', (word, stem) => {
    expect(porterStem(word)).toBe(stem)
  })

  it('conflates the inflections of a word', () => {
    for (const group of [['connect', 'connected', 'connecting', 'connection', 'connections'], ['animate', 'animated', 'animating', 'animation', 'animations'], ['scroll', 'scrolled', 'scrolling', 'scrolls']])
      expect(new Set(group.map(porterStem)).size).toBe(1)
  })

  it('returns words of one or two letters, and anything but a–z, unchanged', () => {
    for (const word of ['a', 'is', 'h264', 'größe', 'Running', 'café', '2xl', ''])
      expect(porterStem(word)).toBe(word)
  })
})
