import type { Event, MoveType, Signature, TransactionPayload, WriteSetChange } from '../gen/aptos/transaction/v1/transaction_pb.js'
import { hex, shortAddress } from './hex.js'
import { jsonText } from './json-text.js'
import { moveTypeString, structTagString } from './move-type.js'
import { changeJson, payloadJson } from './payload.js'
import { signatureJson } from './signature.js'

// The JSON text of the parts of a user transaction, written straight from the message: each
// function returns exactly `JSON.stringify` of its object twin in payload.ts or signature.ts
// (test/follow/stream/convert.test.ts holds the whole transaction's text to it). The common
// kinds are written member by member; the rare ones go through their twin.

/** `JSON.stringify(eventJson(e))`. */
export function eventText(e: Event): string {
  const type = e.typeStr !== '' ? e.typeStr : e.type === undefined ? '' : moveTypeString(e.type)
  return `{"guid":{"creation_number":"${e.key?.creationNumber ?? '0'}","account_address":${JSON.stringify(shortAddress(e.key?.accountAddress ?? '0x0'))}},"sequence_number":"${e.sequenceNumber}","type":${JSON.stringify(type)},"data":${jsonText(e.data)}}`
}

/** `JSON.stringify(events.map(eventJson))`. */
export function eventsText(events: readonly Event[]): string {
  if (events.length === 0) return '[]'
  let text = `[${eventText(events[0] as Event)}`
  for (let i = 1; i < events.length; i++) text += `,${eventText(events[i] as Event)}`
  return `${text}]`
}

/** A payload's JSON text beside the cut-down object the writer's block check reads (`type`, and an entry function's `function`). */
export interface PayloadText {
  text: string
  skeleton: { type: string; function?: string }
}

/** `JSON.stringify(payloadJson(p))`, with its skeleton. */
export function payloadText(p: TransactionPayload | undefined): PayloadText {
  const x = p?.payload
  if (x?.case !== 'entryFunctionPayload') {
    const json = payloadJson(p)
    // The skeleton keeps what the writer's check reads of a payload: its type (and an entry function's function, below).
    return { text: JSON.stringify(json), skeleton: { type: json.type as string } }
  }
  const e = x.value
  const module = e.function?.module
  const id = e.entryFunctionIdStr !== '' ? e.entryFunctionIdStr : `${module?.address ?? '0x0'}::${module?.name ?? ''}::${e.function?.name ?? ''}`
  const cut = id.indexOf('::')
  const fn = cut < 0 ? shortAddress(id) : `${shortAddress(id.slice(0, cut))}${id.slice(cut)}`
  let types = ''
  for (let i = 0; i < e.typeArguments.length; i++) types += `${i === 0 ? '' : ','}${JSON.stringify(moveTypeString(e.typeArguments[i] as MoveType))}`
  let args = ''
  for (let i = 0; i < e.arguments.length; i++) args += `${i === 0 ? '' : ','}${jsonText(e.arguments[i] as string)}`
  return {
    text: `{"function":${JSON.stringify(fn)},"type_arguments":[${types}],"arguments":[${args}],"type":"entry_function_payload"}`,
    skeleton: { type: 'entry_function_payload', function: fn },
  }
}

/** `JSON.stringify(signatureJson(sig))`, `undefined` when the stream has no signature (the member is left out). */
export function signatureText(sig: Signature | undefined): string | undefined {
  const s = sig?.signature
  if (s?.case === 'ed25519') return `{"public_key":"${hex(s.value.publicKey)}","signature":"${hex(s.value.signature)}","type":"ed25519_signature"}`
  const json = signatureJson(sig)
  return json === null ? undefined : JSON.stringify(json)
}

/** `JSON.stringify(changeJson(c))`: a resource written member by member, the rest through `changeJson`. */
export function changeText(c: WriteSetChange): string {
  const x = c.change
  if (x.case !== 'writeResource') return JSON.stringify(changeJson(c))
  const w = x.value
  const type = w.typeStr !== '' ? w.typeStr : w.type === undefined ? '' : structTagString(w.type)
  return `{"address":${JSON.stringify(shortAddress(w.address))},"state_key_hash":"${hex(w.stateKeyHash)}","data":{"type":${JSON.stringify(type)},"data":${jsonText(w.data)}},"type":"write_resource"}`
}

/** `JSON.stringify(changes.map(changeJson))`. */
export function changesText(changes: readonly WriteSetChange[]): string {
  if (changes.length === 0) return '[]'
  let text = `[${changeText(changes[0] as WriteSetChange)}`
  for (let i = 1; i < changes.length; i++) text += `,${changeText(changes[i] as WriteSetChange)}`
  return `${text}]`
}
