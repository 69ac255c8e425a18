/**
 * A TCP proxy on loopback that a test can cut: a network partition between one client (a `serve`
 * replica) and the apiserver, which nothing else shares. TLS passes through untouched (the server's
 * certificate names 127.0.0.1, whatever the port). While cut, the bytes of every connection, open or
 * new, are held, not refused: a partition drops packets, it sends no resets, so a client learns of
 * it only from its own timeouts. `heal` resets what was held (after a partition longer than TCP's
 * retransmissions those connections are dead on both sides) and passes new connections again.
 */
import { createConnection, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  /** `https://127.0.0.1:<port>` for a target reached over TLS. */
  url: string;
  port: number;
  cut(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let cut = false;
  const pairs = new Set<[Socket, Socket]>();
  const server = createServer((client) => {
    const upstream = createConnection(target);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    if (cut) hold(pair);
    else {
      client.pipe(upstream);
      upstream.pipe(client);
    }
  });
  // Paused sockets read nothing, so the sender's window fills and its writes wait: a silent link.
  const hold = ([client, upstream]: [Socket, Socket]): void => {
    client.unpipe(upstream);
    upstream.unpipe(client);
    client.pause();
    upstream.pause();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    cut() {
      cut = true;
      for (const pair of pairs) hold(pair);
    },
    heal() {
      cut = false;
      for (const [client, upstream] of [...pairs]) {
        client.resetAndDestroy();
        upstream.destroy();
      }
    },
    async close() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
