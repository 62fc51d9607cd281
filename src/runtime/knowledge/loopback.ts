// Which hosts may be spoken to over plain HTTP: this machine only, since API
// keys and documents travel with every request to an embedding or chat server.

const LOOPBACK_NAMES = new Set(['localhost', '[::1]', '::1'])

/** Whether `hostname` (as `URL` spells it) is this machine: `localhost`, 127.0.0.0/8 or `::1`. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname.toLowerCase()) || /^127(?:\.\d{1,3}){3}$/.test(hostname)
}
