// The `export` option of named knowledge bases: skill folders written into
// each build's output at build start.

export type { EmittedExport } from './build-exports'
export { assertExportsOutsideKnowledge, emitKnowledgeExports, reportExportFailure } from './build-exports'
