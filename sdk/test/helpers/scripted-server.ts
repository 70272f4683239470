/**
 * A loopback HTTP server whose every answer the test scripts: it can forward to the real server,
 * answer itself, forward and then lie about the outcome (the "lost answer" case), hang, or drop
 * the connection. It records what each attempt looked like and when it arrived.
 */
import { type IncomingHttpHeaders, type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Date.now() when the request arrived. */
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Serialized as JSON unless a string. */
  body?: unknown;
}

export type Script =
  | { forward: true; thenAnswer?: Answer }
  /** Forwarded and applied by the real server, then the connection is cut before its answer: a lost answer. */
  | { forward: true; thenDrop: true }
  | { answer: Answer }
  | { hang: true }
  | { drop: true };

export interface ScriptedServer {
  url: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function forward(target: string, request: SeenRequest): Promise<Answer> {
  const headers = Object.fromEntries(
    Object.entries(request.headers).filter(([name, value]) => typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)),
  ) as Record<string, string>;
  const res = await fetch(target + request.path, { method: request.method, headers, body: request.body === '' ? undefined : request.body });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.text() };
}

/** `target` is the real server to forward to, when a script says so. */
export async function startScriptedServer(script: (request: SeenRequest, index: number) => Script, target?: string): Promise<ScriptedServer> {
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const request = { method: req.method ?? '', path: req.url ?? '/', headers: req.headers, body: await readBody(req), at: Date.now() };
      seen.push(request);
      const step = script(request, seen.length - 1);
      if ('hang' in step) return;
      if ('drop' in step) return req.socket.destroy();
      let answer = 'answer' in step ? step.answer : await forward(target!, request);
      if ('thenDrop' in step) return req.socket.destroy();
      if ('thenAnswer' in step && step.thenAnswer) answer = step.thenAnswer;
      const body = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      const headers = { 'content-type': 'application/json', ...answer.headers };
      delete (headers as Record<string, string>)['content-length'];
      delete (headers as Record<string, string>)['transfer-encoding'];
      res.writeHead(answer.status, headers).end(body);
    })().catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export const answer = (status: number, body?: unknown, headers?: Record<string, string>): Script => ({ answer: { status, body, headers } });
