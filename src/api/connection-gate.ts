import { EventEmitter } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** Requests one connection may have started and not yet finished: a few, so pipelining still overlaps store reads. */
export const DEFAULT_MAX_IN_FLIGHT = 4
/**
 * Requests one connection may have parsed and not started. Past it the connection is closed:
 * a client that pipelines more than this without reading the answers is not a client to wait for.
 */
export const DEFAULT_MAX_WAITING = 1024

const kState = Symbol('ledger-gas.gate')

/** Per-connection state of the gate, made once per connection (internal). `waiting` holds (req, res) pairs flat from `head`. */
export class ConnectionState {
  inFlight = 0
  readonly waiting: (IncomingMessage | ServerResponse)[] = []
  head = 0
  paused = false
  constructor(
    readonly socket: Socket,
    readonly gate: ConnectionGate,
  ) {}
  get waitingCount(): number {
    return (this.waiting.length - this.head) >> 1
  }
}

type GatedSocket = Socket & { [kState]?: ConnectionState }
type GatedResponse = ServerResponse & { [kState]?: ConnectionState }

/** What the gate reports, for tests and metrics. */
export interface GateEvents {
  /** The server stopped reading a connection: `waiting` requests are parsed and not started. */
  pause: [socket: Socket, waiting: number]
  /** Reading resumed: every parsed request of the connection has started. */
  resume: [socket: Socket]
  /** A request started; `inFlight` counts it. */
  start: [socket: Socket, inFlight: number]
  /** The connection was closed because more than `maxWaiting` requests were waiting. */
  overflow: [socket: Socket]
}

/**
 * Bounds the work and the memory one connection can cause (HTTP/1.1 pipelining, slow readers).
 *
 * Node parses every request of a chunk at once and starts them all: 400 pipelined requests in
 * one write are 400 handlers running and 400 bodies buffered for a client that may never read
 * one. Here at most `maxInFlight` requests of a connection run at a time; later ones wait,
 * parsed but not started, and the server stops reading the connection while any wait. A
 * request's slot is freed when its response has been handed to the socket in full ('close'),
 * so a client that does not read holds at most `maxInFlight` responses in the server's memory
 * (and the kernel's socket buffers), and no further work. More than `maxWaiting` waiting
 * requests close the connection.
 *
 * Answers keep their order: Node queues responses per connection in request order whatever
 * order the handlers finish in. Cost on the common path (one request at a time): a property
 * read, two counters and one listener.
 */
export class ConnectionGate extends EventEmitter<GateEvents> {
  /** Largest number of requests of one connection seen running at once (for tests and the bench). */
  maxInFlightSeen = 0
  /** Requests waiting over all connections. */
  waiting = 0
  /** Connections not being read because requests wait. */
  paused = 0

  constructor(
    private readonly dispatch: (req: IncomingMessage, res: ServerResponse) => void,
    readonly maxInFlight = DEFAULT_MAX_IN_FLIGHT,
    readonly maxWaiting = DEFAULT_MAX_WAITING,
    private readonly onOverflow: () => void = () => {},
  ) {
    super()
  }

  /** The server's request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket as GatedSocket
    if (socket.destroyed) return
    const state = socket[kState] ?? this.attach(socket)
    if (state.inFlight < this.maxInFlight && state.waiting.length === state.head) {
      this.start(state, req, res)
      return
    }
    if (state.waitingCount >= this.maxWaiting) {
      this.emit('overflow', socket)
      this.onOverflow()
      socket.destroy()
      return
    }
    state.waiting.push(req, res)
    this.waiting++
    // Node resumes a socket when its own output drains; a request arriving while others wait pauses it again.
    socket.pause()
    if (!state.paused) {
      state.paused = true
      this.paused++
      this.emit('pause', socket, state.waitingCount)
    }
  }

  private attach(socket: GatedSocket): ConnectionState {
    const state = new ConnectionState(socket, this)
    socket[kState] = state
    socket.once('close', () => {
      this.waiting -= state.waitingCount
      state.waiting.length = 0
      state.head = 0
      if (state.paused) {
        state.paused = false
        this.paused--
      }
    })
    return state
  }

  private start(state: ConnectionState, req: IncomingMessage, res: GatedResponse): void {
    state.inFlight++
    if (state.inFlight > this.maxInFlightSeen) this.maxInFlightSeen = state.inFlight
    res[kState] = state
    res.on('close', this.release)
    if (this.listenerCount('start') > 0) this.emit('start', state.socket, state.inFlight)
    this.dispatch(req, res)
  }

  /** A response's 'close' listener (one function for all, `this` is the response): frees its slot. */
  private readonly release = function (this: GatedResponse): void {
    const state = this[kState] as ConnectionState
    state.inFlight--
    state.gate.startWaiting(state)
  }

  /** Starts waiting requests while slots are free; resumes reading once none waits. */
  startWaiting(state: ConnectionState): void {
    if (state.socket.destroyed) return
    while (state.inFlight < this.maxInFlight && state.head < state.waiting.length) {
      const req = state.waiting[state.head] as IncomingMessage
      const res = state.waiting[state.head + 1] as ServerResponse
      state.waiting[state.head] = state.waiting[state.head + 1] = undefined as never
      state.head += 2
      this.waiting--
      this.start(state, req, res)
    }
    if (state.head === state.waiting.length) {
      state.waiting.length = 0
      state.head = 0
      if (state.paused) {
        state.paused = false
        this.paused--
        state.socket.resume()
        this.emit('resume', state.socket)
      }
    }
  }
}
