// A `fetch` for the OpenAI and Anthropic clients that answers each request
// with the next scripted JSON body and never touches the network: the
// scripted runs of the SDK tool adapters.

/** The fetch, and the JSON bodies of the requests the client sent through it. */
export function scriptedFetch(responses: readonly unknown[]): { fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>, requests: Record<string, unknown>[] } {
  const requests: Record<string, unknown>[] = []
  return {
    requests,
    async fetch(_input, init) {
      requests.push(JSON.parse(String(init?.body)) as Record<string, unknown>)
      const body = responses[requests.length - 1]
      if (body === undefined)
        return new Response(JSON.stringify({ error: { message: `The script has ${responses.length} responses; request ${requests.length} is one too many.` } }), { status: 400, headers: { 'content-type': 'application/json' } })
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } })
    },
  }
}
