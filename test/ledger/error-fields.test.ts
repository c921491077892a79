import { describe, expect, it } from 'vitest'
import { InvalidBlockError, LedgerGasError } from '../../src/core/errors.js'
import { BlockContinuityError, InvalidDataError, LedgerContinuityError } from '../../src/ledger/store/errors.js'
import { causeOptions, fromErrorFields, toErrorFields } from '../../src/ledger/threads/error-fields.js'
import { seenError } from './seen-error.js'

/** `error` as the main thread gets it from a worker: taken apart, structured-cloned, rebuilt. */
const acrossThreads = (error: unknown) => fromErrorFields(structuredClone(toErrorFields(error)))

describe('errors crossing a worker thread as plain fields', () => {
  it('an InvalidDataError comes back an InvalidDataError with its file, line, field, detail, code and its cause, an InvalidBlockError with its fields', () => {
    const cause = new InvalidBlockError('12', 'transactions[3].gas_unit_price', 'must be a u64 decimal string, got "1.5"')
    const error = InvalidDataError.at('chain.jsonl', 12, cause)
    const back = acrossThreads(error)
    expect(back).toBeInstanceOf(InvalidDataError)
    expect(back).toBeInstanceOf(LedgerGasError)
    expect(back.cause).toBeInstanceOf(InvalidBlockError)
    expect(seenError(back)).toEqual(seenError(error))
    expect(back).toMatchObject({ code: 'invalid_data', file: 'chain.jsonl', line: 12, field: 'transactions[3].gas_unit_price', name: 'InvalidDataError' })
    expect(back.stack).toBe(error.stack)
  })

  it('keeps what a structured clone of the error itself loses: the class, the fields and the cause', () => {
    const error = new InvalidDataError('f', 2, '(json)', 'not valid JSON', { cause: new SyntaxError('Unexpected token') })
    const cloned = structuredClone(error) as Error
    expect(cloned).not.toBeInstanceOf(InvalidDataError)
    expect((cloned as Partial<InvalidDataError>).field).toBeUndefined()
    const back = acrossThreads(error)
    expect(back).toBeInstanceOf(InvalidDataError)
    expect(back.cause).toBeInstanceOf(SyntaxError)
    expect(seenError(back)).toEqual(seenError(error))
  })

  it('a Node system error comes back an Error with its code, errno, syscall and path; a class not known by name comes back as its nearest known ancestor', () => {
    const system = Object.assign(new Error("ENOENT: no such file or directory, open 'x.jsonl'"), { code: 'ENOENT', errno: -2, syscall: 'open', path: 'x.jsonl' })
    expect(seenError(acrossThreads(system))).toEqual(seenError(system))
    class LocalGap extends BlockContinuityError {}
    const back = acrossThreads(new LocalGap('7', 'first_version', 'expected 70, got 71'))
    expect(back).toBeInstanceOf(BlockContinuityError)
    expect(back).toBeInstanceOf(LedgerContinuityError)
    expect(back).toMatchObject({ block: '7', field: 'first_version', detail: 'expected 70, got 71', code: 'ledger_continuity', message: 'block 7: first_version: expected 70, got 71' })
  })

  it('a cause chain comes back whole, a cause that is not an error as its value, a thrown value that is not an error as an Error naming it, and no cause stays no cause', () => {
    const deep = new RangeError('outer', { cause: new TypeError('middle', { cause: { at: 3, why: 'inner' } }) })
    expect(seenError(acrossThreads(deep))).toEqual(seenError(deep))
    const notCloneable = new Error('with a function cause', { cause: () => 1 })
    expect(acrossThreads(notCloneable).cause).toMatch(/=>/)
    expect(seenError(acrossThreads('just text'))).toEqual(seenError(new Error('just text')))
    const plain = acrossThreads(new InvalidDataError('f', 1, '(line)', 'too long'))
    expect('cause' in plain).toBe(false)
    expect(causeOptions(toErrorFields(new Error('x')))).toBeUndefined()
  })

  it('a cause chain that loops ends after a bounded number of causes', () => {
    const a = new Error('a')
    const b = new Error('b', { cause: a })
    Object.defineProperty(a, 'cause', { value: b, enumerable: false })
    let depth = 0
    for (let e: unknown = acrossThreads(a); e instanceof Error; e = e.cause) depth++
    expect(depth).toBeGreaterThan(2)
    expect(depth).toBeLessThan(20)
  })
})
