import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createServer } from 'node:http'

/** An HTTP server on 127.0.0.1 playing an OpenAI-compatible API under `/v1`. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string
  /** Closes the server and every connection it holds (held requests included). */
  close: () => Promise<void>
}

/** Serves `handle` on a free port of 127.0.0.1. */
export async function listenLoopback(handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>): Promise<LoopbackServer> {
  const server = createServer((request, response) => void handle(request, response))
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: async () => {
      server.closeAllConnections()
      await new Promise(resolve => server.close(resolve))
    },
  }
}
