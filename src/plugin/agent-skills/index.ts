// The `agentSkills` option: each build's output gets the Agent Skills
// Discovery index (`.well-known/agent-skills/index.json`), its artefacts and
// the site's `llms.txt` (`files.ts`), emitted at build start under fixed
// names, after the knowledge exports (which it publishes too), so every
// bundler that takes the exports takes these. The Vite dev server serves
// the same paths (`dev-server.ts`), with the registry's skills only: it
// exports nothing.

import type { UnpluginBuildContext } from 'unplugin'
import type { EmittedExport } from '../export'
import type { PluginState } from '../state'
import { ExportError } from '../../export/error'
import { agentSkillsFiles } from './files'

export { serveAgentSkills } from './dev-server'

/** Emits {@link agentSkillsFiles} into the build's output, when the options ask for them. */
export function emitAgentSkills(context: UnpluginBuildContext, state: PluginState, exports: readonly EmittedExport[]): void {
  if (!state.options.agentSkills)
    return
  const output = state.bundler.buildOutput(context)
  if ('missing' in output) {
    const error = new ExportError('invalid-options', `The agentSkills option writes the well-known skills index into the build output: ${output.missing}.`)
    error.stack = ''
    throw error
  }
  const files = agentSkillsFiles(state, exports, (watched, dirs) => state.bundler.watchBuildStartSources(context, watched, dirs))
  for (const [path, data] of files ?? [])
    output.emit(path, data)
}
