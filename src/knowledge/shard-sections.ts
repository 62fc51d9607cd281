// Little-endian bytes of the sections a sharded snapshot's writer makes
// (snapshot-shards.ts): the format is little-endian whatever the machine.
// Index sections come from snapshot-sections.ts, as the whole snapshot's do.

/** Each term's posting count (offsets[t + 1] − offsets[t]) as an unsigned LEB128 varint. */
export function varints(offsets: Uint32Array): Uint8Array {
  const out: number[] = []
  for (let t = 0; t + 1 < offsets.length; t++) {
    let value = offsets[t + 1]! - offsets[t]!
    while (value >= 0x80) {
      out.push((value & 0x7F) | 0x80)
      value = Math.floor(value / 0x80)
    }
    out.push(value)
  }
  return Uint8Array.from(out)
}

/** Little-endian f32 bytes of `values`. */
export function f32Bytes(values: Float32Array): Uint8Array {
  const out = new Uint8Array(values.length * 4)
  const dv = new DataView(out.buffer)
  for (const [i, v] of values.entries())
    dv.setFloat32(i * 4, v, true)
  return out
}

/** Little-endian u32 bytes of `values`. */
export function u32Bytes(values: readonly number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4)
  const dv = new DataView(out.buffer)
  for (const [i, value] of values.entries())
    dv.setUint32(i * 4, value, true)
  return out
}
