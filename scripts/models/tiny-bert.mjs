// A tiny, deterministic BERT in the Hugging Face layout, for unit tests: Transformers.js
// loads it through its normal path (config.json, tokenizer.json, tokenizer_config.json,
// onnx/model.onnx, onnx/model_quantized.onnx), in well under a second, with no download.
//
// The weights are seeded pseudo-random numbers, so its vectors mean nothing; the tokenizer
// is a real WordPiece tokenizer (BERT normalizer, lowercase, BertPreTokenizer) whose small
// vocabulary has every ASCII letter, digit and punctuation mark, alone and as a `##`
// continuation, so any ASCII word tokenizes without [UNK], plus common English words and
// suffixes. model_quantized.onnx is the q8 graph of src/knowledge/minilm/bert.ts (DynamicQuantizeLinear +
// MatMulInteger over uint8 weights), not a copy of the fp32 file, so the q8 path is tested.

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { bertModel, publishDir, stableJson, writeMessage } from './converter.mjs'

export const TINY_MODEL_ID = 'skill-kit-test/tiny-bert'
export const TINY_VERSION = 1

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]']
const PUNCTUATION = [...'!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~']
const CHARS = [...'abcdefghijklmnopqrstuvwxyz0123456789']
const WORDS = `the of and to a in is it you that he was for on are with as i his they be at one have this from
or had by not word but what some we can out other were all there when up use your how said an each she which do
their time if will way about many then them write would like so these her long make thing see him two has look
more day could go come did number sound no most people my over know water than call first who may down side been
now find any new work part take get place made live where after back little only round man year came show every
good me give our under name very through just form sentence great think say help low line differ turn cause much
mean before move right boy old too same tell does set three want air well also play small end put home read hand
port large spell add even land here must big high such follow act why ask men change went light kind off need
house picture try us again animal point mother world near build self earth father head stand own page should
country found answer school grow study still learn plant cover food sun four between state keep eye never last
let thought city tree cross farm hard start might story saw far sea draw left late run while press close night
real life few north open seem together next white children begin got walk example ease paper group always music
those both mark often letter until mile river car feet care second book carry took science eat room friend began
idea fish mountain stop once base hear horse cut sure watch color colour face wood main enough plain girl usual
young ready above ever red list though feel talk bird soon body dog family direct pose leave song measure door
product black short numeral class wind question happen complete ship area half rock order fire south problem
piece told knew pass since top whole king space heard best hour better true during hundred five remember step
early hold west ground interest reach fast verb sing listen six table travel less morning ten simple several
toward war lay against pattern slow center love person money serve appear road map rain rule govern pull cold
notice voice unit power town fine certain fly fall lead cry dark machine note wait plan figure star box noun
field rest correct able pound done beauty drive stood contain front teach week final gave green oh quick develop
ocean warm free minute strong special mind behind clear tail produce fact street inch multiply nothing course
stay wheel full force blue object decide surface deep moon island foot system busy test record boat common gold
possible plane stead dry wonder laugh thousand ago ran check game shape equate hot miss brought heat snow tire
bring yes distant fill east paint language among web page css html javascript script style mode scheme theme
button input file files folder search query document model token vector skill agent guide recover delete backup
restore browser server code data image video font layout grid flex animation user access accessibility keyboard
focus performance security privacy cache network request response error`.split(/\s+/).filter(Boolean)
const SUFFIXES = ['s', 'es', 'ed', 'ing', 'ly', 'er', 'est', 'tion', 'ment', 'ness', 'able', 'ful', 'less', 'al', 'ive', 'ity']

/** The vocabulary, in id order. */
export function tinyVocabulary() {
  const tokens = [...SPECIAL, ...PUNCTUATION, ...CHARS, ...CHARS.map(c => `##${c}`), ...SUFFIXES.map(s => `##${s}`)]
  const seen = new Set(tokens)
  for (const w of WORDS) {
    if (!seen.has(w)) {
      seen.add(w)
      tokens.push(w)
    }
  }
  return tokens
}

/** mulberry32: a small seeded PRNG, enough for test weights. */
function prng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6D2B79F5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function normals(random, count, std, mean = 0) {
  const out = new Float32Array(count)
  for (let i = 0; i < count; i += 2) {
    const u = Math.max(random(), 1e-12)
    const v = random()
    const r = Math.sqrt(-2 * Math.log(u)) * std
    out[i] = mean + r * Math.cos(2 * Math.PI * v)
    if (i + 1 < count)
      out[i + 1] = mean + r * Math.sin(2 * Math.PI * v)
  }
  return out
}

export function tinyConfig(vocabSize, { hiddenSize = 32, layers = 2, heads = 2, maxLength = 128 } = {}) {
  return {
    architectures: ['BertModel'],
    attention_probs_dropout_prob: 0.1,
    hidden_act: 'gelu',
    hidden_dropout_prob: 0.1,
    hidden_size: hiddenSize,
    initializer_range: 0.02,
    intermediate_size: hiddenSize * 2,
    layer_norm_eps: 1e-12,
    max_position_embeddings: maxLength,
    model_type: 'bert',
    num_attention_heads: heads,
    num_hidden_layers: layers,
    pad_token_id: 0,
    position_embedding_type: 'absolute',
    type_vocab_size: 2,
    vocab_size: vocabSize,
  }
}

function tinyWeights(config, seed) {
  const random = prng(seed)
  const H = config.hidden_size
  const I = config.intermediate_size
  const t = (dims, std, mean = 0) => ({ dims, data: normals(random, dims.reduce((a, b) => a * b, 1), std, mean) })
  const dense = (inDim, outDim) => ({ kernel: t([inDim, outDim], 1 / Math.sqrt(inDim)), bias: t([outDim], 0.1) })
  const norm = () => ({ gamma: t([H], 0.1, 1), beta: t([H], 0.1) })
  return {
    wordEmbeddings: t([config.vocab_size, H], 1),
    positionEmbeddings: t([config.max_position_embeddings, H], 0.2),
    tokenTypeEmbeddings: t([config.type_vocab_size, H], 0.2),
    embeddingsLayerNorm: norm(),
    layers: Array.from({ length: config.num_hidden_layers }, () => ({
      query: dense(H, H),
      key: dense(H, H),
      value: dense(H, H),
      attentionOutput: dense(H, H),
      attentionLayerNorm: norm(),
      intermediate: dense(H, I),
      output: dense(I, H),
      outputLayerNorm: norm(),
    })),
  }
}

/** tokenizer.json for a BERT WordPiece vocabulary (same shape as the real MiniLM file, minus truncation/padding). */
export function bertTokenizerJson(vocab) {
  const id = token => vocab.indexOf(token)
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map(content => ({ id: id(content), content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((token, i) => [token, i])),
    },
  }
}

/**
 * Writes the tiny model to `<dir>/<org>/<name>/` (skipped when the stamp matches).
 * @returns {Promise<{ modelId: string, modelDir: string, built: boolean, config: object }>}
 */
export async function buildTinyModel(dir, { modelId = TINY_MODEL_ID, seed = 1234, hiddenSize, layers, heads, maxLength = 128, force } = {}) {
  const vocab = tinyVocabulary()
  const config = tinyConfig(vocab.length, { hiddenSize, layers, heads, maxLength })
  const stamp = { converter: 'skill-kit tiny-bert', version: TINY_VERSION, seed, config }
  const target = join(dir, ...modelId.split('/'))
  const { built } = await publishDir(target, stamp, async (tmp) => {
    const weights = tinyWeights(config, seed)
    await mkdir(join(tmp, 'onnx'))
    await writeFile(join(tmp, 'config.json'), stableJson(config))
    await writeFile(join(tmp, 'tokenizer.json'), JSON.stringify(bertTokenizerJson(vocab)))
    await writeFile(join(tmp, 'tokenizer_config.json'), stableJson({
      clean_up_tokenization_spaces: true,
      cls_token: '[CLS]',
      do_basic_tokenize: true,
      do_lower_case: true,
      mask_token: '[MASK]',
      model_max_length: maxLength,
      pad_token: '[PAD]',
      sep_token: '[SEP]',
      strip_accents: null,
      tokenize_chinese_chars: true,
      tokenizer_class: 'BertTokenizer',
      unk_token: '[UNK]',
    }))
    const doc = 'Tiny seeded BERT for unplugin-skill-kit tests; random weights.'
    writeMessage(join(tmp, 'onnx', 'model.onnx'), bertModel(config, weights, { dtype: 'fp32', docString: doc }))
    writeMessage(join(tmp, 'onnx', 'model_quantized.onnx'), bertModel(config, weights, { dtype: 'q8', docString: doc }))
  }, { force })
  return { modelId, modelDir: target, built, config }
}
