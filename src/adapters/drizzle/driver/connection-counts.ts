import { Socket } from 'node:net';

/** Told of every connection to PostgreSQL opened and closed: the pool metrics. */
export interface ConnectionObserver {
  opened(): void;
  closed(): void;
}

/**
 * The connections a postgres.js pool has to PostgreSQL: how many it opened (a TCP connection
 * made), how many of those closed, and so how many are open now. postgres.js says when one of its
 * connections closes (`onclose`) but not when one opens, and reports nothing of the connections
 * open: the pool counts the sockets it is given instead (`socketFactory`), so a connection is
 * counted when its TCP connection is made and when that socket closes, whatever closed it (idle or
 * lifetime timeout, the server, an answer timeout, the pool's end), query cancellations included.
 */
export class ConnectionCounts {
  #opened = 0;
  #closed = 0;
  #attempts = 0;
  /** Set by the metrics when they are on. */
  observer: ConnectionObserver | null = null;

  /** Connections opened so far. */
  get opened(): number {
    return this.#opened;
  }

  /** Connections closed so far (each one opened first). */
  get closed(): number {
    return this.#closed;
  }

  /** Called by the sockets this counts. */
  connected(): void {
    this.#opened += 1;
    this.observer?.opened();
  }

  /** Called by the sockets this counts, once each, and only for one that connected. */
  disconnected(): void {
    this.#closed += 1;
    this.observer?.closed();
  }

  /** Connections open now. */
  get open(): number {
    return this.#opened - this.#closed;
  }

  /**
   * The `socket` option of postgres.js: a socket connecting to the pool's host, counted once
   * connected and again when it closes. Returned while it connects, as postgres.js's own socket
   * would be: what postgres.js writes first waits in the socket, its connect timeout covers the TCP
   * connection, and its error and close handlers (reconnect, backoff) see a failed connection.
   * TLS is postgres.js's: it asks for it over this socket (`sslmode`) and wraps it; the socket
   * under the TLS one closes with it. A Unix socket (postgres.js's `path`) is connected to as
   * postgres.js would.
   */
  readonly socketFactory = (options: { host: string[]; port: number[]; path: string | false }): Socket => {
    const socket = new CountedSocket(this);
    if (options.path) return socket.connect(options.path);
    // Several hosts: each attempt goes to the next, as postgres.js's own sockets do (it turns
    // through them per connection, this through them per pool), so a host that refuses, or is not
    // what `target_session_attrs` asks for, is followed by another.
    const index = this.#attempts++ % Math.max(1, options.host.length);
    const host = options.host[index] ?? 'localhost';
    const port = options.port[index] ?? 5432;
    socket.connect(port, host);
    // What postgres.js sets on its own TCP sockets: the TLS server name and its connection errors read them.
    return Object.assign(socket, { host, port });
  };
}

/**
 * A socket that tells its counts when it connects and when it closes. It sees its own events as
 * they are emitted rather than through listeners: postgres.js removes every listener of a socket
 * before it wraps it in TLS (`socket.removeAllListeners()`).
 */
class CountedSocket extends Socket {
  #state: 'new' | 'connected' | 'closed' = 'new';

  constructor(private readonly counts: ConnectionCounts) {
    super();
  }

  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'connect' && this.#state === 'new') {
      this.#state = 'connected';
      this.counts.connected();
    } else if (event === 'close' && this.#state !== 'closed') {
      if (this.#state === 'connected') this.counts.disconnected();
      this.#state = 'closed';
    }
    return super.emit(event, ...args);
  }
}
