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

/** Typed arrays a tensor's raw data may be. */
export type TensorData = Float32Array | Uint8Array | Int8Array | Int32Array | BigInt64Array

/** Bytes of a protobuf varint; negative numbers are encoded as 64-bit two's complement (10 bytes). */
function varint(value: number | bigint): Uint8Array {
  let v = typeof value === 'bigint' ? value : BigInt(value)
  if (v < 0n)
    v += 1n << 64n
  const out: number[] = []
  while (v >= 0x80n) {
    out.push(Number(v & 0x7Fn) | 0x80)
    v >>= 7n
  }
  out.push(Number(v))
  return Uint8Array.from(out)
}

/** A protobuf message under construction: byte chunks plus their total length. */
export class Message {
  chunks: Uint8Array[] = []
  length = 0

  push(bytes: Uint8Array): this {
    if (bytes.length > 0) {
      this.chunks.push(bytes)
      this.length += bytes.length
    }
    return this
  }

  tag(field: number, wire: number): this {
    return this.push(varint((field << 3) | wire))
  }

  /** int32/int64/enum/bool field. */
  int(field: number, value: number | bigint): this {
    return this.tag(field, WIRE_VARINT).push(varint(value))
  }

  float(field: number, value: number): this {
    const b = new Uint8Array(4)
    new DataView(b.buffer).setFloat32(0, value, true)
    return this.tag(field, WIRE_I32).push(b)
  }

  bytes(field: number, data: TensorData): this {
    const u8 = data instanceof Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    return this.tag(field, WIRE_LEN).push(varint(u8.length)).push(u8)
  }

  string(field: number, text: string): this {
    return this.bytes(field, textEncoder.encode(text))
  }

  message(field: number, child: Message): this {
    this.tag(field, WIRE_LEN).push(varint(child.length))
    for (const c of child.chunks)
      this.push(c)
    return this
  }

  /** Packed repeated varints (int64 dims, ints attributes). */
  packed(field: number, values: readonly (number | bigint)[]): this {
    const inner = new Message()
    for (const v of values)
      inner.push(varint(v))
    return this.message(field, inner)
  }

  /** Packed repeated float32. */
  packedFloats(field: number, values: readonly number[]): this {
    return this.bytes(field, Float32Array.from(values))
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.length)
  }
}

const TYPED_DATA: [abstract new (...args: never[]) => TensorData, number][] = [
  [Float32Array, DataType.FLOAT],
  [Uint8Array, DataType.UINT8],
  [Int8Array, DataType.INT8],
  [Int32Array, DataType.INT32],
  [BigInt64Array, DataType.INT64],
]

/** Element type of a typed array (Uint8Array means UINT8; pass `dataType` for BOOL). */
export function dataTypeOf(data: TensorData): number {
  for (const [ctor, type] of TYPED_DATA) {
    if (data instanceof ctor)
      return type
  }
  throw new TypeError(`Unsupported tensor data: ${Object.prototype.toString.call(data)}`)
}

/** TensorProto with raw little-endian data (the platforms ONNX Runtime ships for are little-endian). */
export function tensorProto(name: string, dims: readonly number[], data: TensorData, dataType = dataTypeOf(data)): Message {
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

function valueInfo(name: string, elemType: number, dims: readonly (number | string)[]): Message {
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

/** A FLOAT attribute whose value may be integral (`alpha: onnxFloat(1)`). */
export interface OnnxFloat { float: number }

/** Marks a number as a FLOAT attribute even when it is integral (`alpha: onnxFloat(1)`). */
export function onnxFloat(value: number): OnnxFloat {
  return { float: value }
}

/** A node attribute: integral numbers are INT, others FLOAT; arrays of one kind; a tensor as a Message. */
export type AttributeValue = number | bigint | string | OnnxFloat | Message | readonly string[] | readonly (number | bigint)[]

function attribute(name: string, value: AttributeValue): Message {
  const m = new Message().string(1, name)
  if (value instanceof Message)
    return m.message(5, value).int(20, AttributeType.TENSOR)
  if (typeof value === 'object' && 'float' in value)
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
  if (Array.isArray(value)) {
    if (value.every(v => typeof v === 'string')) {
      for (const v of value as readonly string[])
        m.string(9, v)
      return m.int(20, AttributeType.STRINGS)
    }
    const numbers = value as readonly (number | bigint)[]
    if (numbers.every(v => Number.isInteger(v) || typeof v === 'bigint'))
      return m.packed(8, numbers).int(20, AttributeType.INTS)
    return m.packedFloats(7, numbers as readonly number[]).int(20, AttributeType.FLOATS)
  }
  throw new TypeError(`Unsupported attribute ${name}: ${String(value)}`)
}

/** Options of a node: its outputs (a count, or names), its name and domain; every other key is an attribute. */
export interface NodeOptions {
  outputs?: number | string[]
  name?: string
  domain?: string
  [attribute: string]: AttributeValue | string[] | undefined
}

/**
 * Builds a graph node by node. Names are checked as they are used: every node input must be a
 * graph input, an initializer or an earlier node's output, so a typo fails here and not inside
 * ONNX Runtime.
 */
export class GraphBuilder {
  nodes: Message[] = []
  initializers: Message[] = []
  inputs: Message[] = []
  outputs: Message[] = []
  #defined = new Set<string>()
  #counter = 0

  constructor(readonly name = 'graph') {}

  input(name: string, elemType: number, dims: readonly (number | string)[]): string {
    this.inputs.push(valueInfo(name, elemType, dims))
    this.#define(name)
    return name
  }

  output(name: string, elemType: number, dims: readonly (number | string)[]): string {
    if (!this.#defined.has(name))
      throw new Error(`Graph output ${name} is not produced by any node`)
    this.outputs.push(valueInfo(name, elemType, dims))
    return name
  }

  /** Adds an initializer from a typed array. `dataType` overrides the inferred type (e.g. BOOL). */
  initializer(name: string, dims: readonly number[], data: TensorData, dataType?: number): string {
    this.initializers.push(tensorProto(name, dims, data, dataType))
    this.#define(name)
    return name
  }

  /** Scalar or 1-D float constant. */
  float(name: string, values: number | readonly number[], dims: readonly number[] = Array.isArray(values) ? [values.length] : []): string {
    return this.initializer(name, dims, Float32Array.from([values].flat()))
  }

  /** Scalar or 1-D int64 constant. */
  int64(name: string, values: number | readonly number[], dims: readonly number[] = Array.isArray(values) ? [values.length] : []): string {
    return this.initializer(name, dims, BigInt64Array.from([values].flat().map(v => BigInt(v))))
  }

  /** Adds a node with one output (auto-named, or `outputs: [name]`) and returns its name; '' stands for an omitted optional input. */
  node(opType: string, inputs: readonly string[], options: NodeOptions = {}): string {
    const outputs = this.#add(opType, inputs, options)
    if (outputs.length !== 1)
      throw new Error(`${opType} node has ${outputs.length} outputs: add it with nodeOutputs()`)
    return outputs[0]!
  }

  /** Adds a node with several outputs (a count: auto-named, or explicit names) and returns their names. */
  nodeOutputs(opType: string, inputs: readonly string[], options: NodeOptions & { outputs: number | string[] }): string[] {
    return this.#add(opType, inputs, options)
  }

  #add(opType: string, inputs: readonly string[], { outputs = 1, name, domain, ...attrs }: NodeOptions): string[] {
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
        m.message(5, attribute(key, value as AttributeValue))
    }
    if (domain)
      m.string(7, domain)
    this.nodes.push(m)
    for (const o of outNames)
      this.#define(o)
    return outNames
  }

  #define(name: string): void {
    if (this.#defined.has(name))
      throw new Error(`Graph value ${name} is defined twice`)
    this.#defined.add(name)
  }

  toMessage(): Message {
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

/** Options of {@link modelProto}. */
export interface ModelProtoOptions {
  irVersion?: number
  opset?: number
  producerName?: string
  producerVersion?: string
  docString?: string
  metadata?: Record<string, unknown>
}

/** ModelProto around a graph: IR 8, default-domain opset 17 unless told otherwise. */
export function modelProto(graph: GraphBuilder | Message, { irVersion = 8, opset = 17, producerName = 'unplugin-skill-kit', producerVersion = '1', docString, metadata = {} }: ModelProtoOptions = {}): Message {
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
export function writeMessage(path: string, message: Message): void {
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
