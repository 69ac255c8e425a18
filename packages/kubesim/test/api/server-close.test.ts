/**
 * Stopping the sim ends every connection it holds, so `stop()` returns however its clients behave.
 * A client that keeps retrying (serve's watches do) can be mid-TLS-handshake when the sim stops:
 * Node's closeAllConnections does not know such a socket, and `server.close()` then waited for it
 * (for the 120 s handshake timeout, or for good once that client opened a watch) — a CI run once
 * hung on it for over an hour.
 */
import assert from 'node:assert/strict';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { describe, it } from 'node:test';
import { startSimApi } from '../support.js';

const closedSocket = (socket: Socket): Promise<void> =>
  new Promise((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once('close', () => resolve());
  });

/** A TLS connection to the sim that has finished its handshake and sent nothing yet. */
async function handshaken(url: string, ca: string): Promise<TLSSocket> {
  const socket = connectTls({
    port: Number(new URL(url).port),
    host: '127.0.0.1',
    ca,
    servername: 'localhost',
  });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('secureConnect', () => resolve()));
  return socket;
}

// The timeout is the test's failure, not a timing goal: without the fix stop() outlasts it.
describe('sim API stop', () => {
  it('ends a connection still in its TLS handshake', { timeout: 30_000 }, async () => {
    const sim = await startSimApi();
    const port = Number(new URL(sim.api.url).port);
    const socket = connectTcp(port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const ended = closedSocket(socket);
    await sim.close();
    await ended;
    assert.equal(socket.destroyed, true);
  });

  it(
    'ends an open watch and a connection that has finished its handshake but sent nothing',
    { timeout: 30_000 },
    async () => {
      const sim = await startSimApi();
      const quiet = await handshaken(sim.api.url, sim.api.caPem);
      const watching = await handshaken(sim.api.url, sim.api.caPem);
      const firstBytes = new Promise<string>((resolve) =>
        watching.once('data', (chunk: Buffer) => resolve(chunk.toString())),
      );
      watching.write(
        'GET /api/v1/namespaces?watch=true HTTP/1.1\r\nHost: localhost\r\n' +
          `Authorization: Bearer ${sim.api.token}\r\n\r\n`,
      );
      assert.match(await firstBytes, /^HTTP\/1\.1 200/);
      const ended = Promise.all([closedSocket(quiet), closedSocket(watching)]);
      await sim.close();
      await ended;
    },
  );
});
