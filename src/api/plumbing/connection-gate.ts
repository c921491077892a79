import { EventEmitter } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'

/** Requests one connection may have started and not yet finished: a few, so pipelining still overlaps store reads. */
export const DEFAULT_MAX_IN_FLIGHT = 4
/** Waiting (pipelined) requests started per event-loop turn, over all connections. */
export const DEFAULT_STARTS_PER_TURN = 1
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
  /** In the gate's ready queue (has a waiting request and a free slot). */
  ready = false
  constructor(
    readonly socket: Socket,
    readonly gate: ConnectionGate,
  ) {}
  get waitingCount(): number {
    return (this.waiting.length - this.head) >> 1
  }
}

/** `_paused` is Node's own flag (node:_http_server): while set, Node's parser and its `readStart` leave the socket unread. */
type GatedSocket = Socket & { [kState]?: ConnectionState; _paused?: boolean }
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
 * one. Here a connection's request starts at once only when none of its requests is running;
 * a pipelined one waits, parsed but not started, and the server stops reading the connection
 * while any wait. Waiting requests are started by a round-robin over connections, `perTurn`
 * per event-loop turn, at most `maxInFlight` per connection at a time, so pipelining clients
 * share the loop with everyone else instead of queueing their whole backlog ahead of a fresh
 * request. A request's slot is freed when its response has been handed to the socket in full
 * ('close'): a client that does not read holds at most `maxInFlight` responses in the server's
 * memory (and the kernel's socket buffers) and causes no further work. More than `maxWaiting`
 * waiting requests close the connection.
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
  /** Connections with a waiting request and a free slot, in turn order; `readyHead` is the next. */
  private readonly readyQueue: ConnectionState[] = []
  private readyHead = 0
  private scheduled = false

  constructor(
    private readonly dispatch: (req: IncomingMessage, res: ServerResponse) => void,
    readonly maxInFlight = DEFAULT_MAX_IN_FLIGHT,
    readonly maxWaiting = DEFAULT_MAX_WAITING,
    private readonly onOverflow: () => void = () => {},
    readonly perTurn = DEFAULT_STARTS_PER_TURN,
  ) {
    super()
  }

  /** The server's request listener. */
  readonly handle = (req: IncomingMessage, res: ServerResponse): void => {
    const socket = req.socket as GatedSocket
    if (socket.destroyed) return
    const state = socket[kState] ?? this.attach(socket)
    if (state.inFlight === 0 && state.waiting.length === state.head) {
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
    // Node's flag too, so that its parser pauses after the chunk it is executing.
    socket._paused = true
    socket.pause()
    if (!state.paused) {
      state.paused = true
      this.paused++
      this.emit('pause', socket, state.waitingCount)
    }
    if (state.inFlight < this.maxInFlight) this.markReady(state)
  }

  private attach(socket: GatedSocket): ConnectionState {
    const state = new ConnectionState(socket, this)
    socket[kState] = state
    // Node resumes a socket on its own (when its output drains, after each response); while
    // requests wait, this gate alone decides when the connection is read again.
    const resume = socket.resume
    socket.resume = function (this: GatedSocket) {
      return state.paused ? this : resume.call(this)
    }
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
    if (state.head < state.waiting.length) state.gate.markReady(state)
  }

  /** Queues a connection for the next turn's starts (once; it has a waiting request and a free slot). */
  markReady(state: ConnectionState): void {
    if (state.ready || state.socket.destroyed) return
    state.ready = true
    this.readyQueue.push(state)
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(this.turn)
    }
  }

  /** One turn: starts up to `perTurn` waiting requests, one per connection in round-robin. */
  private readonly turn = (): void => {
    this.scheduled = false
    for (let n = 0; n < this.perTurn && this.readyHead < this.readyQueue.length; ) {
      const state = this.readyQueue[this.readyHead++] as ConnectionState
      state.ready = false
      if (state.socket.destroyed || state.head === state.waiting.length) continue
      const req = state.waiting[state.head] as IncomingMessage
      const res = state.waiting[state.head + 1] as ServerResponse
      state.waiting[state.head] = state.waiting[state.head + 1] = undefined as never
      state.head += 2
      this.waiting--
      n++
      this.start(state, req, res)
      if (state.head < state.waiting.length) {
        if (state.inFlight < this.maxInFlight) this.markReady(state)
      } else {
        state.waiting.length = 0
        state.head = 0
        if (state.paused) {
          state.paused = false
          this.paused--
          ;(state.socket as GatedSocket)._paused = false
          state.socket.resume()
          this.emit('resume', state.socket)
        }
      }
    }
    if (this.readyHead === this.readyQueue.length) {
      this.readyQueue.length = 0
      this.readyHead = 0
    } else if (this.readyHead > 1024) {
      this.readyQueue.splice(0, this.readyHead)
      this.readyHead = 0
    }
    if (this.readyHead < this.readyQueue.length && !this.scheduled) {
      this.scheduled = true
      setImmediate(this.turn)
    }
  }
}
