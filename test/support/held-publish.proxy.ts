/**
 * A TCP proxy in front of a NATS server that holds a client's first message to one subject until
 * the test has done something else: the way to make a compare-and-swap lose its race every time,
 * since the held write reaches the server only after the rival's write has been stored.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface HeldPublishProxy {
  /** `nats://127.0.0.1:<port>`: give this to the client whose publish is to be held. */
  readonly url: string;
  /** Resolves once the first publish to the subject has reached the proxy (and is being held). */
  readonly held: Promise<void>;
  /** Forwards the held bytes and everything after them; later publishes pass straight through. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Proxies to `target` (`nats://host:port`), holding the client's bytes from the first `PUB`/`HPUB`
 * to `subject` on: the server sees nothing of that message (it waits for the whole message) until
 * `release()`.
 */
export async function startHeldPublishProxy(
  target: string,
  subject: string,
): Promise<HeldPublishProxy> {
  const { hostname, port } = new URL(target);
  const patterns = [`PUB ${subject} `, `HPUB ${subject} `];
  const longest = Math.max(...patterns.map((p) => p.length));
  let markHeld!: () => void;
  const held = new Promise<void>((resolve) => (markHeld = resolve));
  let state: 'watching' | 'holding' | 'released' = 'watching';
  const waiting: Array<() => void> = [];
  const sockets = new Set<Socket>();

  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    // The end of what this client sent before, so a subject split across two reads is still seen.
    let tail = '';
    client.on('data', (chunk: Buffer) => {
      if (state === 'watching') {
        const text = tail + chunk.toString('latin1');
        tail = text.slice(-longest);
        if (patterns.some((p) => text.includes(p))) {
          state = 'holding';
          markHeld();
        }
      }
      if (state === 'holding') waiting.push(() => upstream.write(chunk));
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the proxy has no port');

  return {
    url: `nats://127.0.0.1:${address.port}`,
    held,
    release() {
      state = 'released';
      for (const forward of waiting.splice(0)) forward();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
