// CRC-32 of snapshots, shards and query tables: the writer stamps it, the readers check it.

let crcTable: Int32Array | undefined

function makeCrcTable(): Int32Array {
  // Slicing-by-4 tables: table k maps a byte that is k positions further back.
  const table = new Int32Array(1024)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++)
      c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1
    table[n] = c
  }
  for (let n = 0; n < 256; n++) {
    let c = table[n]!
    for (let k = 1; k < 4; k++) {
      c = table[c & 0xFF]! ^ (c >>> 8)
      table[k * 256 + n] = c
    }
  }
  return table
}

/** CRC-32 (the zlib / PNG polynomial) of `bytes`, as an unsigned integer. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  const t = crcTable ??= makeCrcTable()
  let c = -1
  let i = start
  for (const last = end - 3; i < last; i += 4) {
    c ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)
    c = t[768 + (c & 0xFF)]! ^ t[512 + ((c >>> 8) & 0xFF)]! ^ t[256 + ((c >>> 16) & 0xFF)]! ^ t[c >>> 24]!
  }
  for (; i < end; i++)
    c = t[(c ^ bytes[i]!) & 0xFF]! ^ (c >>> 8)
  return (c ^ -1) >>> 0
}
