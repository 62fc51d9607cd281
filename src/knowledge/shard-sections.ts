// Little-endian bytes of the sections a sharded snapshot's writer makes
// (snapshot-shards.ts): the format is little-endian whatever the machine.

import type { PendingSection } from './snapshot-sections'
import { ElementType } from '../runtime/knowledge/format/snapshot-layout'

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

/** `values` (each under `count`) as a u16 section where they fit, else u32. */
export function indexSection(tag: string, values: Uint32Array, count: number): PendingSection {
  return count - 1 > 0xFFFF ? { tag, type: ElementType.u32, bytes: u32Bytes([...values]) } : { tag, type: ElementType.u16, bytes: u16Bytes(values) }
}

/** Little-endian u16 bytes of `values`. */
function u16Bytes(values: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(values.length * 2)
  const dv = new DataView(out.buffer)
  for (let i = 0; i < values.length; i++)
    dv.setUint16(i * 2, values[i]!, true)
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
