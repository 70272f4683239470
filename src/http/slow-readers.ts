/**
 * Closes connections whose answer makes no progress: a client that asks for a large
 * body (or a stream) and stops reading would otherwise hold what we wrote for it,
 * and its socket, for as long as it likes. A socket is stalled when bytes wait in its
 * buffer and none reached the kernel since the last look; after `timeoutMs` of that it
 * is destroyed (the request's close handlers then stop any provider call). A waiting
 * request with nothing to write (a refine whose provider is thinking) is never stalled.
 */
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics.js';

interface Watched {
  bytesWritten: number;
  stalledSince: number | undefined;
}

export function installSlowReaderTimeout(app: FastifyInstance, timeoutMs: number, metrics: Metrics): void {
  const sockets = new Map<Socket, Watched>();
  app.server.on('connection', (socket: Socket) => {
    sockets.set(socket, { bytesWritten: 0, stalledSince: undefined });
    socket.once('close', () => sockets.delete(socket));
  });
  const check = () => {
    const now = Date.now();
    for (const [socket, watched] of sockets) {
      if (socket.writableLength === 0 || socket.bytesWritten !== watched.bytesWritten) {
        watched.bytesWritten = socket.bytesWritten;
        watched.stalledSince = undefined;
        continue;
      }
      watched.stalledSince ??= now;
      if (now - watched.stalledSince >= timeoutMs) {
        sockets.delete(socket);
        metrics.slowReadersClosed.inc();
        app.log.warn({ bufferedBytes: socket.writableLength, stalledMs: now - watched.stalledSince }, 'closed a connection whose client stopped reading');
        socket.destroy();
      }
    }
  };
  // Looked at a few times per timeout: a stall is closed within 1.25 × the timeout.
  const timer = setInterval(check, Math.max(50, Math.floor(timeoutMs / 4)));
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
