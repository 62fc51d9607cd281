// `node --import ./no-network.mjs …`: any attempt to reach the network (fetch, a
// socket to another host) is written to stderr as `NETWORK ATTEMPT <where>` and
// fails, so a test can assert that a command never tried.
import net from 'node:net'

const attempt = (where) => {
  process.stderr.write(`NETWORK ATTEMPT ${where}\n`)
  return new Error(`network disabled by test/support/no-network.mjs (${where})`)
}
globalThis.fetch = async input => Promise.reject(attempt(String(input?.url ?? input)))
const connect = net.Socket.prototype.connect
net.Socket.prototype.connect = function (...args) {
  const options = typeof args[0] === 'object' ? args[0] : { port: args[0], host: args[1] }
  if (!options.path)
    throw attempt(`${options.host ?? 'localhost'}:${options.port}`)
  return connect.apply(this, args)
}
