// `node --import ./no-transformers.mjs …`: Transformers.js and ONNX Runtime cannot be
// resolved, as in an app that never installed them (they are optional for lexical-only
// knowledge bases).
import { register } from 'node:module'

const hooks = `
const MISSING = /^(?:@huggingface\\/transformers|onnxruntime-(?:node|web|common))(?:\\/|$)/
export async function resolve(specifier, context, next) {
  if (MISSING.test(specifier)) {
    const error = new Error("Cannot find package '" + specifier + "' (hidden by test/support/no-transformers.mjs)")
    error.code = 'ERR_MODULE_NOT_FOUND'
    throw error
  }
  return next(specifier, context)
}
`
register(`data:text/javascript,${encodeURIComponent(hooks)}`)
