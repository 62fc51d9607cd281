// A minimal ONNX writer: just enough protobuf (varints and length-delimited fields) to
// hand-encode a ModelProto (IR 8, opset 17) with raw-data initializers. No dependency.
//
// Field numbers follow onnx/onnx.proto. Messages are kept as lists of byte chunks with a
// known length, so a 90 MB initializer is never copied into intermediate buffers: the
// model is written to disk chunk by chunk.

import { closeSync, openSync, writeSync } from 'node:fs'

/** TensorProto.DataType */
export const DataType = Object.freeze({ FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7, BOOL: 9 })

/** AttributeProto.AttributeType */
const AttributeType = Object.freeze({ FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7, STRINGS: 8 })

const WIRE_VARINT = 0
const WIRE_I32 = 5
const WIRE_LEN = 2

const textEncoder = new TextEncoder()

/** Bytes of a protobuf varint; negative numbers are encoded as 64-bit two's complement (10 bytes). */
function varint(value) {
  let v = typeof value === 'bigint' ? value : BigInt(value)
  if (v < 0n)
    v += 1n << 64n
  const out = []
  while (v >= 0x80n) {
    out.push(Number(v & 0x7Fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return Uint8Array.from(out)
}

/** A protobuf message under construction: byte chunks plus their total length. */
export class Message {
  chunks = []
  length = 0

  push(bytes) {
    if (bytes.length > 0) {
      this.chunks.push(bytes)
      this.length += bytes.length
    }
    return this
  }

  tag(field, wire) {
    return this.push(varint((field << 3) | wire))
  }

  /** int32/int64/enum/bool field. */
  int(field, value) {
    return this.tag(field, WIRE_VARINT).push(varint(value))
  }

  float(field, value) {
    const b = new Uint8Array(4)
    new DataView(b.buffer).setFloat32(0, value, true)
    return this.tag(field, WIRE_I32).push(b)
  }

  bytes(field, data) {
    const u8 = data instanceof Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    return this.tag(field, WIRE_LEN).push(varint(u8.length)).push(u8)
  }

  string(field, text) {
    return this.bytes(field, textEncoder.encode(text))
  }

  message(field, child) {
    this.tag(field, WIRE_LEN).push(varint(child.length))
    for (const c of child.chunks)
      this.push(c)
    return this
  }

  /** Packed repeated varints (int64 dims, ints attributes). */
  packed(field, values) {
    const inner = new Message()
    for (const v of values)
      inner.push(varint(v))
    return this.message(field, inner)
  }

  /** Packed repeated float32. */
  packedFloats(field, values) {
    return this.bytes(field, Float32Array.from(values))
  }

  toBuffer() {
    return Buffer.concat(this.chunks, this.length)
  }
}

const TYPED_DATA = new Map([
  [Float32Array, DataType.FLOAT],
  [Uint8Array, DataType.UINT8],
  [Int8Array, DataType.INT8],
  [Int32Array, DataType.INT32],
  [BigInt64Array, DataType.INT64],
])

/** Element type of a typed array (Uint8Array means UINT8; pass `dataType` for BOOL). */
export function dataTypeOf(data) {
  for (const [ctor, type] of TYPED_DATA) {
    if (data instanceof ctor)
      return type
  }
  throw new TypeError(`Unsupported tensor data: ${Object.prototype.toString.call(data)}`)
}

/** TensorProto with raw little-endian data (the platforms ONNX Runtime ships for are little-endian). */
export function tensorProto(name, dims, data, dataType = dataTypeOf(data)) {
  const count = dims.reduce((a, b) => a * b, 1)
  if (data.length !== count)
    throw new Error(`Tensor ${name}: ${data.length} values for dims [${dims.join(', ')}]`)
  const m = new Message()
  if (dims.length > 0)
    m.packed(1, dims)
  m.int(2, dataType)
  if (name)
    m.string(8, name)
  m.bytes(9, data)
  return m
}

function valueInfo(name, elemType, dims) {
  const shape = new Message()
  for (const d of dims) {
    const dim = new Message()
    if (typeof d === 'string')
      dim.string(2, d)
    else dim.int(1, d)
    shape.message(1, dim)
  }
  const tensorType = new Message().int(1, elemType).message(2, shape)
  const type = new Message().message(1, tensorType)
  return new Message().string(1, name).message(2, type)
}

/** Marks a number as a FLOAT attribute even when it is integral (`alpha: onnxFloat(1)`). */
export function onnxFloat(value) {
  return { float: value }
}

function attribute(name, value) {
  const m = new Message().string(1, name)
  if (value && typeof value === 'object' && 'float' in value)
    return m.float(2, value.float).int(20, AttributeType.FLOAT)
  if (typeof value === 'number') {
    return Number.isInteger(value)
      ? m.int(3, value).int(20, AttributeType.INT)
      : m.float(2, value).int(20, AttributeType.FLOAT)
  }
  if (typeof value === 'bigint')
    return m.int(3, value).int(20, AttributeType.INT)
  if (typeof value === 'string')
    return m.string(4, value).int(20, AttributeType.STRING)
  if (value instanceof Message)
    return m.message(5, value).int(20, AttributeType.TENSOR)
  if (Array.isArray(value)) {
    if (value.every(v => typeof v === 'string')) {
      for (const v of value)
        m.string(9, v)
      return m.int(20, AttributeType.STRINGS)
    }
    if (value.every(v => Number.isInteger(v) || typeof v === 'bigint'))
      return m.packed(8, value).int(20, AttributeType.INTS)
    return m.packedFloats(7, value).int(20, AttributeType.FLOATS)
  }
  throw new TypeError(`Unsupported attribute ${name}: ${String(value)}`)
}

/**
 * Builds a graph node by node. Names are checked as they are used: every node input must be a
 * graph input, an initializer or an earlier node's output, so a typo fails here and not inside
 * ONNX Runtime.
 */
export class GraphBuilder {
  nodes = []
  initializers = []
  inputs = []
  outputs = []
  #defined = new Set()
  #counter = 0

  constructor(name = 'graph') {
    this.name = name
  }

  input(name, elemType, dims) {
    this.inputs.push(valueInfo(name, elemType, dims))
    this.#define(name)
    return name
  }

  output(name, elemType, dims) {
    if (!this.#defined.has(name))
      throw new Error(`Graph output ${name} is not produced by any node`)
    this.outputs.push(valueInfo(name, elemType, dims))
    return name
  }

  /** Adds an initializer from a typed array. `dataType` overrides the inferred type (e.g. BOOL). */
  initializer(name, dims, data, dataType) {
    this.initializers.push(tensorProto(name, dims, data, dataType))
    this.#define(name)
    return name
  }

  /** Scalar or 1-D float constant. */
  float(name, values, dims = Array.isArray(values) ? [values.length] : []) {
    return this.initializer(name, dims, Float32Array.from([values].flat()))
  }

  /** Scalar or 1-D int64 constant. */
  int64(name, values, dims = Array.isArray(values) ? [values.length] : []) {
    return this.initializer(name, dims, BigInt64Array.from([values].flat().map(v => BigInt(v))))
  }

  /**
   * Adds a node and returns its output name(s). `outputs` may be a count (auto-named outputs)
   * or explicit names; '' stands for an omitted optional input.
   */
  node(opType, inputs, { outputs = 1, name, domain, ...attrs } = {}) {
    for (const i of inputs) {
      if (i !== '' && !this.#defined.has(i))
        throw new Error(`${opType} node reads ${i}, which is not defined yet`)
    }
    const id = name ?? `${opType}_${this.#counter++}`
    const outNames = typeof outputs === 'number'
      ? Array.from({ length: outputs }, (_, k) => (outputs === 1 ? `${id}_out` : `${id}_out${k}`))
      : outputs
    const m = new Message()
    for (const i of inputs)
      m.string(1, i)
    for (const o of outNames)
      m.string(2, o)
    m.string(3, id).string(4, opType)
    for (const [key, value] of Object.entries(attrs)) {
      if (value !== undefined)
        m.message(5, attribute(key, value))
    }
    if (domain)
      m.string(7, domain)
    this.nodes.push(m)
    for (const o of outNames)
      this.#define(o)
    return outNames.length === 1 ? outNames[0] : outNames
  }

  #define(name) {
    if (this.#defined.has(name))
      throw new Error(`Graph value ${name} is defined twice`)
    this.#defined.add(name)
  }

  toMessage() {
    const g = new Message()
    for (const n of this.nodes)
      g.message(1, n)
    g.string(2, this.name)
    for (const t of this.initializers)
      g.message(5, t)
    for (const i of this.inputs)
      g.message(11, i)
    for (const o of this.outputs)
      g.message(12, o)
    return g
  }
}

/** ModelProto around a graph: IR 8, default-domain opset 17 unless told otherwise. */
export function modelProto(graph, { irVersion = 8, opset = 17, producerName = 'unplugin-skill-kit', producerVersion = '1', docString, metadata = {} } = {}) {
  const m = new Message().int(1, irVersion)
  m.string(2, producerName).string(3, producerVersion)
  if (docString)
    m.string(6, docString)
  m.message(7, graph instanceof GraphBuilder ? graph.toMessage() : graph)
  m.message(8, new Message().string(1, '').int(2, opset))
  for (const [key, value] of Object.entries(metadata))
    m.message(14, new Message().string(1, key).string(2, String(value)))
  return m
}

/** Writes a message to a file chunk by chunk. */
export function writeMessage(path, message) {
  const fd = openSync(path, 'w')
  try {
    for (const chunk of message.chunks) {
      let written = 0
      while (written < chunk.length)
        written += writeSync(fd, chunk, written, chunk.length - written)
    }
  }
  finally {
    closeSync(fd)
  }
}
