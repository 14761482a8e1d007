/**
 * A TCP proxy between a client under test and a real server, for outages that never touch the
 * shared server: refused connections, dropped connections, silence.
 */
import net from 'node:net';

/**
 * Forwards 127.0.0.1:<port> to the server. `stop()` closes the port and drops every connection
 * (as a restart does: new connections are refused); `reset()` drops every connection and keeps
 * accepting new ones; in `silent` mode it accepts connections and never answers (a server that
 * hangs, a half-open network path).
 */
export class TcpProxy {
  port = 0;
  mode: 'forward' | 'silent' = 'forward';
  /**
   * When set, a new connection is reset as the client sends its chunk number N + 1 (counting
   * from 1): with N = 1, right after the startup message, as the first query goes out.
   */
  resetAfterClientChunks: number | null = null;
  #server: net.Server | null = null;
  readonly #sockets = new Set<net.Socket>();
  readonly #pairs = new Set<[net.Socket, net.Socket]>();

  constructor(private readonly target: { host: string; port: number }) {}

  /** Connections the proxy holds open right now (each forwarded one counts twice). */
  get openSockets(): number {
    return this.#sockets.size;
  }

  /**
   * Every connection forwarded so far stops forwarding, both ways, and stays open: the host behind
   * it is gone without a word (a half-open TCP path). New connections are forwarded as usual.
   */
  freeze(): void {
    for (const [client, upstream] of this.#pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
    this.#pairs.clear();
  }

  /** Every open connection is reset at once (a server that crashed); new ones are accepted. */
  reset(): void {
    for (const socket of this.#sockets) socket.resetAndDestroy();
  }

  async start(): Promise<void> {
    if (this.#server !== null) return;
    const server = net.createServer((client) => this.#accept(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  async stop(): Promise<void> {
    const server = this.#server;
    if (server === null) return;
    this.#server = null;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }

  #track(socket: net.Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => this.#sockets.delete(socket));
    socket.on('error', () => undefined);
  }

  #accept(client: net.Socket): void {
    this.#track(client);
    if (this.mode === 'silent') {
      client.resume(); // read and drop whatever the client sends
      return;
    }
    const upstream = net.connect(this.target.port, this.target.host);
    this.#track(upstream);
    const limit = this.resetAfterClientChunks;
    if (limit !== null) {
      let chunks = 0;
      client.on('data', () => {
        chunks += 1;
        if (chunks > limit) {
          client.resetAndDestroy();
          upstream.resetAndDestroy();
        }
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    this.#pairs.add(pair);
    client.once('close', () => this.#pairs.delete(pair));
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  }
}
