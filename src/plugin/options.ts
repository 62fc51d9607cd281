import type { ChunkConfig, ModelSettings, QueryEncoder, SearchConfig } from '../knowledge/config'
import type { PageUrlOption } from '../knowledge/page-urls'
import type { ShardOptions } from '../knowledge/snapshot-shards'
import type { OnInvalid } from '../skill/compile'
import { isAbsolute, resolve } from 'node:path'
import picomatch from 'picomatch'

/** A glob (relative to `root`, or starting with `**`), a RegExp on the absolute path, or a list of them. */
export type FilterPattern = string | RegExp | readonly (string | RegExp)[]

/** Options of the skill-kit plugin. */
export interface Options {
  /** Skill files to handle (default `['**\/SKILL.md', '**\/*.skill.md']`). */
  include?: FilterPattern
  /** Files to leave alone even when `include` matches (default none). */
  exclude?: FilterPattern
  /** A name that differs from its folder or file name is an error, not a warning (default `false`). */
  strict?: boolean
  /**
   * What an invalid skill does (default `'error'`):
   * `'error'` fails the build with every diagnostic of the file;
   * `'fallback'` loads it whole (mode `fallback`, no section reading) and reports the diagnostics as warnings.
   */
  onInvalid?: OnInvalid
  /** Folder that diagnostics and shipped paths are relative to (default: Vite's root, else the working directory). */
  root?: string
  /** The registry, `virtual:skill-kit/skills`. */
  skills?: {
    /** Folders holding `<name>/SKILL.md` and `<name>.skill.md`, relative to `root` (default `['skills', '.agents/skills']`; missing ones are skipped). */
    dirs?: string[]
  }
  /**
   * Named knowledge bases, imported as `virtual:skill-kit/knowledge/<name>`: a
   * folder (relative to `root`) holding `skill-kit.json` or just Markdown, or
   * the folder with settings that replace the project's.
   */
  knowledge?: Record<string, string | KnowledgeOptions>
  /**
   * Never download embedding models while building (default `false`): a missing
   * model fails the build at once, naming its folder. Fill the cache first with
   * `skill-kit model`.
   */
  offline?: boolean
  /**
   * Emit the embedding model and ONNX Runtime's WebAssembly files as assets, so
   * that browsers embed queries themselves (vector search with no server). About
   * 23 MB for the default model, loaded on the first vector search; with
   * `queryEncoder: 'auto'` the model then embeds queries, and no query table is
   * emitted. Default `false`: queries are embedded with the query table (`auto`,
   * `static`), or, with `queryEncoder: 'model'`, browsers search lexically unless
   * the app passes `embedQuery`.
   */
  includeModel?: boolean
  /**
   * Publishes the build's skills for agents (default `false`; builds only, not
   * the dev server): `.well-known/agent-skills/index.json` (the Agent Skills
   * Discovery index, RFC v0.2.0) with each skill of the registry folders
   * (`skills.dirs`) and each exported knowledge base (`knowledge.<name>.export`)
   * beside it, as `<name>/SKILL.md` or, with bundled files, `<name>.tar.gz`;
   * and `llms.txt` at the output's root. `true` takes the defaults.
   */
  agentSkills?: boolean | AgentSkillsOptions
}

/** What `agentSkills` publishes besides the index. */
export interface AgentSkillsOptions {
  /** Writes `llms.txt` at the output's root (default `true`). */
  llmsTxt?: boolean
  /** The H1 of llms.txt (default: the `name` of `package.json` in `root`, else the root folder's name). */
  title?: string
  /** The summary under it (default: the `description` of that `package.json`, if any). */
  summary?: string
}

/** One named knowledge base. */
export interface KnowledgeOptions {
  /** The folder, relative to `root`. */
  dir: string
  /**
   * Replaces `model` settings of `skill-kit.json` (or the defaults), key by key,
   * the embedding server's (`provider: 'openai-compatible'`, `baseUrl`, …)
   * included; `cacheDir` is relative to `dir`. `false`: no model at all (no
   * vectors, lexical search only, Transformers.js never loaded).
   */
  model?: Partial<ModelSettings> | false
  /** Replaces `chunk` settings, key by key. */
  chunk?: Partial<ChunkConfig>
  /** Replaces `search` settings (the module's defaults), key by key. */
  search?: Partial<SearchConfig>
  /**
   * Publishes the snapshot as a small core and shards (default `false`), so that
   * browsers fetch what a search reads: a lexical search, the core and its terms'
   * postings; a vector search, every vector shard, in parallel while the query
   * model loads. Rankings are the same as with one snapshot. `true` uses the
   * default sizes (16 KiB of postings, 1 MiB of vectors a shard). Builds only:
   * the Vite dev server serves one snapshot.
   */
  shards?: boolean | ShardOptions
  /**
   * Vite builds: adds `<link rel="preload" as="fetch" crossorigin>` for the
   * sharded snapshot's core and the query table's core to each HTML page whose
   * entry imports this base statically (default `false`), so that the browser
   * fetches them while the page's JavaScript loads. Needs `shards`.
   */
  preloadHtml?: boolean
  /**
   * Replaces `queryEncoder` of `skill-kit.json`: how queries are embedded at
   * run time. `'auto'` (default): a table distilled from the model at build
   * time (emitted as a small core and shards: a query fetches its own pieces'
   * rows, no model, no WebAssembly), unless the app calls `useModel` or the
   * build has `includeModel`; `'static'`: the table only; `'model'`: the model.
   */
  queryEncoder?: QueryEncoder
  /**
   * Replaces `description` of `skill-kit.json`: what the base holds, in a
   * sentence, which its exported skill's `SKILL.md` and `llms.txt` give
   * agents (default: one made from its name).
   */
  description?: string
  /** Overrides the plugin's `includeModel` for this knowledge base (an error with `model: false`; the plugin's own `includeModel` skips such a base). */
  includeModel?: boolean
  /**
   * Each document's page URL, which the search UI links results to (default:
   * none; `searchSource` then links `#doc/<id>`): `'vitepress'`
   * (`guide/intro.md` → `/guide/intro`), `'vitepress-html'` (`/guide/intro.html`),
   * `'astro'` (`/guide/intro/`), a pattern with `{path}` or `{id}`
   * (`'/docs/{path}'`), or a function of the document. Each document of the
   * module gets its `url`.
   */
  url?: PageUrlOption
  /**
   * Writes the knowledge base as an exported skill folder (as `skill-kit
   * export` does) into the output of each build (not the dev server).
   */
  export?: KnowledgeExportOptions
}

/** A knowledge base exported as a skill folder into the build output. */
export interface KnowledgeExportOptions {
  /** `'semantic'` (default): SKILL.md, search.mjs, the index and the documents; `'routed'`: SKILL.md, llms.txt, index pages and the documents. */
  mode?: 'semantic' | 'routed'
  /** The folder in the build output (default `skills/<skill name>`, the skill name made from the project's `name`). */
  outDir?: string
  /** Semantic exports: copy the embedding model too, so the folder's vector search needs no other (default `false`). */
  includeModel?: boolean
}

export const DEFAULT_SKILL_DIRS = ['skills', '.agents/skills']

export const DEFAULT_INCLUDE = ['**/SKILL.md', '**/*.skill.md']

/**
 * Compiled globs, by glob: a plugin compiles its patterns when it is made and
 * again when Vite sets the root, and compiling costs more than the build's
 * matching. A matcher is a pure function of its glob.
 */
const matchers = new Map<string, (path: string) => boolean>()

function globMatcher(glob: string): (path: string) => boolean {
  let matcher = matchers.get(glob)
  if (!matcher)
    matchers.set(glob, matcher = picomatch(glob, { dot: true }))
  return matcher
}

/** `(absolutePath) => boolean` for include/exclude patterns, the way Rollup's `createFilter` reads them. */
export function createFileFilter(include: FilterPattern | undefined, exclude: FilterPattern | undefined, root: string): (file: string) => boolean {
  const compile = (pattern: FilterPattern | undefined) => [pattern ?? []].flat().map((p) => {
    if (p instanceof RegExp)
      return (file: string) => p.test(file)
    const glob = isAbsolute(p) || p.startsWith('**') ? p : resolve(root, p)
    return globMatcher(glob.replace(/\\/g, '/'))
  })
  const included = compile(include ?? DEFAULT_INCLUDE)
  const excluded = compile(exclude)
  return (file) => {
    const path = file.replace(/\\/g, '/')
    return included.some(match => match(path)) && !excluded.some(match => match(path))
  }
}
