import { other } from './move.js'
import { ascii, type TextWriter } from './text-writer.js'
import { signatureText1 } from './signature-text.js'
import { eventsText, microsText, payloadText1, range, secondsText, type Ranges } from './user-text.js'
import type { WireReader } from './wire-reader.js'

// The members of each common transaction kind after `changes`, written from the wire as
// wire-text.ts writes the rest (user-text.ts: their parts).

export const NULL = ascii('null')
const SENDER = ascii(',"sender":')
const SEQUENCE = ascii(',"sequence_number":"')
const MAX_GAS = ascii('","max_gas_amount":"')
const GAS_PRICE = ascii('","gas_unit_price":"')
const EXPIRATION = ascii('","expiration_timestamp_secs":"')
const PAYLOAD = ascii('","payload":')
const SIGNATURE = ascii(',"signature":')
const NONCE = ascii(',"replay_protection_nonce":')
const EVENTS = ascii(',"events":')
export const TIMESTAMP = ascii(',"timestamp":"')
const USER_END = ascii('","type":"user_transaction"}')
const ID = ascii(',"id":')
const EPOCH = ascii(',"epoch":"')
const ROUND = ascii('","round":"')
const ROUND_END = ascii('","events":')
const BITVEC = ascii(',"previous_block_votes_bitvec":[')
const PROPOSER = ascii('],"proposer":')
const FAILED = ascii(',"failed_proposer_indices":[')
const METADATA_END = ascii('","type":"block_metadata_transaction"}')
const QUOTE = ascii('"')
const EMPTY = ascii('""')
const COMMA = ascii(',')
const CLOSE = ascii(']')

/** Where a transaction's parts lie in the response, read in one pass over its fields. */
export interface Parts {
  version: string
  epoch: string
  blockHeight: string
  kind: 'user' | 'blockMetadata' | 'stateCheckpoint' | 'blockEpilogue'
  /** The transaction's `timestamp` at `[time, timeEnd)`; `time` < 0 when left out. */
  time: number
  timeEnd: number
  info: number
  infoEnd: number
  data: number
  dataEnd: number
}

// The ranges each function below reads into: one array each, reused, as none runs inside itself.
const USER_EVENTS: Ranges = []
const METADATA_EVENTS: Ranges = []
const FAILED_INDICES: number[] = []

/** A user transaction's members after `changes`; its skeleton, or `undefined` for a shape left to the decoder. */
export function user(r: WireReader, p: Parts, gasUsed: string, w: TextWriter): Record<string, unknown> | undefined {
  let request = -1
  let requestEnd = -1
  const events = USER_EVENTS
  events.length = 0
  r.pos = p.data
  while (r.pos < p.dataEnd) {
    const tag = r.tag(p.dataEnd)
    if (tag === ((1 << 3) | 2)) {
      if (request >= 0) return undefined
      requestEnd = r.lengthEnd(p.dataEnd)
      request = r.pos
      r.pos = requestEnd
    } else if (tag === ((2 << 3) | 2)) range(r, p.dataEnd, events)
    else other(r, tag, p.dataEnd, 0b110)
  }
  if (request < 0) return undefined
  let sender = -1
  let senderEnd = -1
  let sequence = '0'
  let maxGas: number | string = 0
  let gasPrice = '0'
  let expiration = -1
  let expirationEnd = -1
  let payload = -1
  let payloadEnd = -1
  let signature = -1
  let signatureEnd = -1
  r.pos = request
  while (r.pos < requestEnd) {
    const tag = r.tag(requestEnd)
    switch (tag) {
      case (1 << 3) | 2:
        // Checked when written (`addressText`); a string sent twice is checked twice by the decoder.
        if (sender >= 0) return undefined
        senderEnd = r.lengthEnd(requestEnd)
        sender = r.pos
        r.pos = senderEnd
        break
      case (2 << 3) | 0:
        sequence = r.uint64String(requestEnd)
        break
      case (3 << 3) | 0:
        maxGas = r.uint64Value(requestEnd)
        break
      case (4 << 3) | 0:
        gasPrice = r.uint64String(requestEnd)
        break
      case (5 << 3) | 2:
        if (expiration >= 0) return undefined
        expirationEnd = r.lengthEnd(requestEnd)
        expiration = r.pos
        r.pos = expirationEnd
        break
      case (6 << 3) | 2:
        if (payload >= 0) return undefined
        payloadEnd = r.lengthEnd(requestEnd)
        payload = r.pos
        r.pos = payloadEnd
        break
      case (7 << 3) | 2:
        if (signature >= 0) return undefined
        signatureEnd = r.lengthEnd(requestEnd)
        signature = r.pos
        r.pos = signatureEnd
        break
      default:
        other(r, tag, requestEnd, 0b11111110)
    }
  }
  w.lit(SENDER)
  const short = sender < 0 ? '' : w.addressText(r, sender, senderEnd)
  if (sender < 0) w.lit(EMPTY)
  w.lit(SEQUENCE)
  w.ascii(sequence)
  w.lit(MAX_GAS)
  w.u64(maxGas)
  w.lit(GAS_PRICE)
  w.ascii(gasPrice)
  w.lit(EXPIRATION)
  secondsText(r, expiration, expirationEnd, w)
  w.lit(PAYLOAD)
  const payloadParts = payloadText1(r, payload, payloadEnd, w)
  if (signature >= 0) {
    const at = w.mark()
    w.lit(SIGNATURE)
    if (!signatureText1(r, signature, signatureEnd, w)) w.reset(at)
  }
  w.lit(NONCE)
  if (payloadParts.nonce === null) w.lit(NULL)
  else {
    w.lit(QUOTE)
    w.ascii(payloadParts.nonce)
    w.lit(QUOTE)
  }
  w.lit(EVENTS)
  eventsText(r, events, w)
  w.lit(TIMESTAMP)
  microsText(r, p.time, p.timeEnd, w)
  w.lit(USER_END)
  return { version: p.version, gas_used: gasUsed, sender: short, sequence_number: sequence, gas_unit_price: gasPrice, payload: payloadParts.skeleton, replay_protection_nonce: payloadParts.nonce, type: 'user_transaction' }
}

/** A block-metadata transaction's members after `changes`; its block id and timestamp (µs), or `undefined` for a string sent twice (the decoder checks both). */
export function metadata(r: WireReader, p: Parts, w: TextWriter): { id: string; micros: string } | undefined {
  let id = -1
  let idEnd = -1
  let round: number | string = 0
  const events = METADATA_EVENTS
  events.length = 0
  let bitvec = p.data
  let bitvecEnd = p.data
  let proposer = -1
  let proposerEnd = -1
  const failed = FAILED_INDICES
  failed.length = 0
  const end = p.dataEnd
  r.pos = p.data
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case (1 << 3) | 2:
        if (id >= 0) return undefined
        idEnd = r.lengthEnd(end)
        id = r.pos
        r.pos = idEnd
        break
      case (2 << 3) | 0:
        round = r.uint64Value(end)
        break
      case (3 << 3) | 2:
        range(r, end, events)
        break
      case (4 << 3) | 2:
        bitvecEnd = r.lengthEnd(end)
        bitvec = r.pos
        r.pos = bitvecEnd
        break
      case (5 << 3) | 2:
        if (proposer >= 0) return undefined
        proposerEnd = r.lengthEnd(end)
        proposer = r.pos
        r.pos = proposerEnd
        break
      case (6 << 3) | 0:
      case (6 << 3) | 2:
        r.repeatedVarint(tag, end, failed, (e) => r.varint32(e))
        break
      default:
        other(r, tag, end, 0b1111110)
    }
  }
  w.lit(ID)
  const blockId = id < 0 ? '' : w.stringText(r, id, idEnd)
  if (id < 0) w.lit(EMPTY)
  w.lit(EPOCH)
  w.ascii(p.epoch)
  w.lit(ROUND)
  w.u64(round)
  w.lit(ROUND_END)
  eventsText(r, events, w)
  w.lit(BITVEC)
  const src = r.input
  for (let i = bitvec; i < bitvecEnd; i++) {
    if (i > bitvec) w.lit(COMMA)
    w.decimal(src[i] as number)
  }
  w.lit(PROPOSER)
  if (proposer < 0) w.lit(EMPTY)
  else w.address(r, proposer, proposerEnd)
  w.lit(FAILED)
  for (let i = 0; i < failed.length; i++) {
    if (i > 0) w.lit(COMMA)
    w.decimal(failed[i] as number)
  }
  w.lit(CLOSE)
  w.lit(TIMESTAMP)
  const at = w.mark()
  microsText(r, p.time, p.timeEnd, w)
  const micros = w.since(at)
  w.lit(METADATA_END)
  return { id: blockId, micros }
}

const GAS_LIMIT = ascii('{"block_gas_limit_reached":')
const OUTPUT_LIMIT = ascii(',"block_output_limit_reached":')
const GAS_UNITS = ascii(',"block_effective_block_gas_units":')
const OUTPUT_SIZE = ascii(',"block_approx_output_size":')
const TRUE = ascii('true')
const FALSE = ascii('false')
const CLOSE_OBJECT = ascii('}')

/** `JSON.stringify(info)` of an `endInfo` answer, member by member (a number's JSON is its `String`). */
export function endInfoText(info: BlockEndInfoJson | null, w: TextWriter): void {
  if (info === null) {
    w.lit(NULL)
    return
  }
  w.lit(GAS_LIMIT)
  w.lit(info.block_gas_limit_reached ? TRUE : FALSE)
  w.lit(OUTPUT_LIMIT)
  w.lit(info.block_output_limit_reached ? TRUE : FALSE)
  w.lit(GAS_UNITS)
  w.ascii(String(info.block_effective_block_gas_units))
  w.lit(OUTPUT_SIZE)
  w.ascii(String(info.block_approx_output_size))
  w.lit(CLOSE_OBJECT)
}

/** The node's `block_end_info` (OpenAPI `BlockEndInfo`), as `endInfo` builds it. */
export interface BlockEndInfoJson {
  block_gas_limit_reached: boolean
  block_output_limit_reached: boolean
  block_effective_block_gas_units: number
  block_approx_output_size: number
}

/** The epilogue's `block_end_info` as the node's JSON (`null` when absent); false when it is sent twice (merged). */
export function endInfo(r: WireReader, at: number, end: number): BlockEndInfoJson | null | false {
  let info: BlockEndInfoJson | null = null
  r.pos = at
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag !== ((1 << 3) | 2)) {
      other(r, tag, end, 0b10)
      continue
    }
    if (info !== null) return false
    const stop = r.lengthEnd(end)
    let gas = false
    let output = false
    let units = 0n
    let size = 0n
    while (r.pos < stop) {
      const t = r.tag(stop)
      if (t === ((1 << 3) | 0)) gas = r.varint32(stop) !== 0
      else if (t === ((2 << 3) | 0)) output = r.varint32(stop) !== 0
      else if (t === ((3 << 3) | 0)) units = r.uint64(stop)
      else if (t === ((4 << 3) | 0)) size = r.uint64(stop)
      else other(r, t, stop, 0b11110)
    }
    info = { block_gas_limit_reached: gas, block_output_limit_reached: output, block_effective_block_gas_units: Number(units), block_approx_output_size: Number(size) }
  }
  return info
}

