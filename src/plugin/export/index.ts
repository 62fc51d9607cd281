// The `export` option of named knowledge bases: skill folders written into
// each build's output at build start.

export { assertExportsOutsideKnowledge, emitKnowledgeExports, reportExportFailure } from './build-exports'
