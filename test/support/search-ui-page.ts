// A page for the search component's Chromium tests, served from 127.0.0.1:
// `/` has a header with `<skill-kit-search>` (and a div for mountSearch), the
// harness bundled by esbuild from the sources; `/docs/<name>.html` are the
// pages results link to, each with the fake documents' headings as anchors,
// far apart so that landing on one is visible.

import type { AddressInfo } from 'node:net'
import type { Browser, Page, Request } from 'playwright-core'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const HOME = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>Docs</title></head>
<body><header><a href="/">Docs</a> <skill-kit-search></skill-kit-search> <div id="mounted"></div></header>
<main><h1 id="home">Home</h1><p>Search the docs.</p><input id="elsewhere" aria-label="Another field"></main>
<script type="module" src="/harness.js"></script></body></html>`

const ANCHORS = ['light-dismiss', 'dialog-focus', 'closing-a-dialog', 'dialog-events']

function docPage(name: string): string {
  const sections = ANCHORS.map(id => `<h2 id="${id}">${id}</h2><div style="height:1500px"></div>`).join('')
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title></head><body><h1>${name}</h1>${sections}</body></html>`
}

/** The served test page; `close()` stops the server. */
export interface SearchUIServer {
  origin: string
  close: () => Promise<void>
}

/** Bundles the harness and serves the pages on a free port of 127.0.0.1. */
export async function serveSearchUI(): Promise<SearchUIServer> {
  const bundled = await build({
    entryPoints: [fileURLToPath(new URL('./search-ui-harness.ts', import.meta.url))],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
  })
  const script = bundled.outputFiles[0]!.text
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname
    const page = /^\/docs\/([\w-]+)\.html$/.exec(path)
    const [type, body] = path === '/'
      ? ['text/html; charset=utf-8', HOME]
      : path === '/harness.js'
        ? ['text/javascript', script]
        : page ? ['text/html; charset=utf-8', docPage(page[1]!)] : ['text/plain', 'not found']
    response.writeHead(type === 'text/plain' ? 404 : 200, { 'content-type': type })
    response.end(body)
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise(resolve => server.close(resolve))
    },
  }
}

/** A page of the harness (`query`: its set-up), each request it makes pushed to `requests`. */
export async function openSearchUI(browser: Browser, origin: string, query: string, requests: Request[], viewport = { width: 1024, height: 700 }): Promise<Page> {
  const page = await browser.newPage({ viewport })
  page.on('request', request => requests.push(request))
  await page.goto(`${origin}/?${query}`)
  await page.waitForSelector('body[data-ready="yes"]', { state: 'attached' })
  return page
}
