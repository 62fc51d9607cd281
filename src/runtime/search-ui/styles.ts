// The component's style sheet, inside its shadow root: the site's CSS cannot
// break it, and it cannot break the site. Sites theme it through custom
// properties (they cross the shadow boundary), each with a light and a dark
// value; dark applies under `prefers-color-scheme: dark` unless the host says
// `theme="light"`, and always under `theme="dark"`.

/** `--skill-kit-search-<name>` for light, `--skill-kit-search-dark-<name>` for dark, and their defaults. */
const COLOURS: Record<string, [light: string, dark: string]> = {
  'bg': ['#ffffff', '#1e1e22'],
  'fg': ['#1f2328', '#e6e6e9'],
  'muted': ['#59636e', '#a0a0aa'],
  'border': ['#d0d7de', '#3d3d45'],
  'accent': ['#0b57d0', '#8ab4f8'],
  'active-bg': ['#e8f0fe', '#2c3a52'],
  'mark-bg': ['#fff3a3', '#5c4d00'],
  'mark-fg': ['inherit', '#fff6c2'],
  'backdrop': ['rgb(0 0 0 / 0.4)', 'rgb(0 0 0 / 0.6)'],
}

const names = Object.keys(COLOURS)
const light = names.map(n => `--c-${n}:var(--skill-kit-search-${n},${COLOURS[n]![0]});`).join('')
const dark = names.map(n => `--c-${n}:var(--skill-kit-search-dark-${n},${COLOURS[n]![1]});`).join('')

/** The shadow root's CSS. */
export const STYLES = `
:host{${light}display:inline-block;font-family:var(--skill-kit-search-font,system-ui,sans-serif);color:var(--c-fg)}
:host([theme=dark]){${dark}}
@media (prefers-color-scheme:dark){:host(:not([theme=light])){${dark}}}
*{box-sizing:border-box}
.open{display:inline-flex;align-items:center;gap:.5em;min-height:2.25em;padding:.25em .75em;border:1px solid var(--c-border);border-radius:var(--skill-kit-search-radius,8px);background:var(--c-bg);color:var(--c-muted);font:inherit;cursor:pointer}
.open:hover{border-color:var(--c-accent)}
kbd{font:inherit;font-size:.8em;padding:0 .35em;border:1px solid var(--c-border);border-radius:4px}
:focus-visible{outline:2px solid var(--c-accent);outline-offset:2px}
dialog{width:min(var(--skill-kit-search-width,40rem),100vw);max-width:100vw;max-height:min(80vh,44rem);margin:10vh auto auto;padding:0;border:1px solid var(--c-border);border-radius:var(--skill-kit-search-radius,8px);background:var(--c-bg);color:var(--c-fg);font:inherit;overflow:hidden}
dialog[open]{display:flex}
dialog::backdrop{background:var(--c-backdrop)}
.panel{display:flex;flex-direction:column;width:100%;min-width:0;max-height:inherit}
.bar{display:flex;gap:.5em;padding:.75em;border-bottom:1px solid var(--c-border)}
input{flex:1;min-width:0;font:inherit;font-size:1.05em;padding:.4em .6em;border:1px solid var(--c-border);border-radius:6px;background:transparent;color:inherit}
.close{font:inherit;padding:.25em .6em;border:1px solid var(--c-border);border-radius:6px;background:transparent;color:var(--c-muted);cursor:pointer}
.filters{display:flex;flex-direction:column;gap:.25em;padding:.5em .75em 0}
.filters[hidden],.facets[hidden]{display:none}
.facets{display:flex;flex-wrap:wrap;gap:.35em;align-items:center;padding-bottom:.25em}
.facets>span{color:var(--c-muted);font-size:.85em;white-space:nowrap}
.facet{flex:none;font:inherit;font-size:.85em;padding:.1em .55em;border:1px solid var(--c-border);border-radius:999px;background:transparent;color:inherit;cursor:pointer;white-space:nowrap}
.facet[aria-pressed=true]{background:var(--c-accent);border-color:var(--c-accent);color:var(--c-bg)}
.status{margin:0;padding:.5em .75em;color:var(--c-muted);font-size:.85em;min-height:2.2em}
[role=listbox]{flex:1;min-height:0;overflow-y:auto;padding:0 .5em .5em}
[role=option]{display:block;padding:.5em .6em;border-radius:6px;color:inherit;text-decoration:none;cursor:pointer;overflow-wrap:anywhere}
[role=option][aria-selected=true]{background:var(--c-active-bg);outline:1px solid var(--c-accent)}
[role=option][aria-disabled=true]{cursor:default;opacity:.7}
.title{font-weight:600}
.path{display:block;color:var(--c-muted);font-size:.8em}
.excerpt{display:block;color:var(--c-muted);font-size:.9em;margin-top:.15em}
.sub{margin-left:1.25em;border-left:2px solid var(--c-border);border-radius:0 6px 6px 0}
.sub .title{font-weight:500}
.group-label{padding:.25em .6em;color:var(--c-muted);font-size:.8em;text-transform:uppercase;letter-spacing:.04em}
mark{background:var(--c-mark-bg);color:var(--c-mark-fg);border-radius:2px}
.keys{margin:0;padding:.5em .75em;border-top:1px solid var(--c-border);color:var(--c-muted);font-size:.8em}
@media (max-width:480px){dialog{margin:0;width:100vw;height:100dvh;max-height:none;border-radius:0;border:0}.keys,.open kbd{display:none}.facets{flex-wrap:nowrap;overflow-x:auto}}
@media (prefers-reduced-motion:no-preference){[role=option]{transition:background-color .1s}}
`
