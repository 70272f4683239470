/** /studio over plain HTTP: where it lives, the headers that make it safe, the assets it needs. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installErrorHandling } from '../../src/http/error-handler.js';
import { STUDIO_CSP, studioRoutes } from '../../src/routes/studio.js';
import { rawRequest } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('Persona Studio over HTTP', () => {
  let server: TestServer;
  let html: string;
  let assets: string[];

  beforeAll(async () => {
    server = await startTestServer();
    html = await (await fetch(`${server.url}/studio/`)).text();
    assets = [...html.matchAll(/(?:src|href)="(\/studio\/assets\/[^"]+)"/g)].map((match) => match[1]!);
  });
  afterAll(async () => {
    await server?.close();
  });

  it('redirects /studio to the canonical /studio/, keeping the query', async () => {
    const response = await fetch(`${server.url}/studio?persona=1`, { redirect: 'manual' });
    expect(response.status).toBe(301);
    expect(response.headers.get('location')).toBe('/studio/?persona=1');
  });

  it('serves the app at /studio/ with a CSP that allows only its own origin and nothing inline', async () => {
    const response = await fetch(`${server.url}/studio/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy');
    expect(csp).toBe(STUDIO_CSP);
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "img-src 'self' data:",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'self'",
    ]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('cache-control')).toBe('no-cache');
  });

  it('builds a page with no inline script, inline style or other origin, that the CSP would block', () => {
    const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [tag, body] of scripts) {
      expect(tag).toMatch(/\ssrc="\/studio\/assets\//);
      expect(body).toBe('');
    }
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=|https?:\/\//i);
  });

  it('serves every asset the page names, with a long immutable cache', async () => {
    expect(assets.some((path) => path.endsWith('.js'))).toBe(true);
    expect(assets.some((path) => path.endsWith('.css'))).toBe(true);
    for (const path of assets) {
      const response = await fetch(server.url + path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toMatch(path.endsWith('.js') ? /^(text|application)\/javascript/ : /^text\/css/);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-security-policy')).toBe(STUDIO_CSP);
      const body = await response.text();
      // The bundle talks to the service it came from, never to another origin.
      expect(body).not.toMatch(/https?:\/\/(?!www\.w3\.org\/)[a-z0-9.-]+\.[a-z]{2,}\//i);
    }
  });

  it('lets the browser revalidate index.html by ETag', async () => {
    const first = await fetch(`${server.url}/studio/`);
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    // As a browser revalidates; without Cache-Control, fetch() itself would add `no-cache`, which forbids a 304.
    const again = await fetch(`${server.url}/studio/`, { headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' } });
    expect(again.status).toBe(304);
  });

  it('answers a missing file with the API error shape, and other methods with 405', async () => {
    const missing = await fetch(`${server.url}/studio/assets/nope.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 404, message: 'no route for GET /studio/assets/nope.js' });
    const post = await fetch(`${server.url}/studio/`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it.each([
    ['/studio//index.html'],
    ['/studio/a/./b'],
    ['/studio/../etc/passwd'],
    ['/studio/%2e%2e/package.json'],
    ['/studio/./'],
    ['/studio/aaa… (300 characters)', `/studio/${'a'.repeat(300)}`],
    ['/docs/static/../../package.json'],
    ['/docs/static/%2e%2e/index.html'],
  ])('answers the scanner path %s with a 404 in the error shape, revealing nothing and logging no error', async (label, path = label) => {
    const logged = server.logs.length;
    const response = await rawRequest(server.url, 'GET', path);
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual({ error: 404, message: `no route for GET ${path.length > 200 ? `${path.slice(0, 200)}…` : path}` });
    const lines = server.logs.slice(logged).map((line) => JSON.parse(line));
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });

  it('answers a NUL in the path with the 400 every route gives it (no engine could store one)', async () => {
    const response = await rawRequest(server.url, 'GET', '/studio/%00');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ error: 400, message: 'the URL must not contain the NUL character (%00)' });
  });

  it('says how to build the studio when it has not been built', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'studio-unbuilt-'));
    const app = Fastify({ logger: false });
    installErrorHandling(app, 1024);
    await app.register(studioRoutes, { buildDir: empty });
    try {
      const response = await app.inject({ url: '/studio/' });
      expect(response.statusCode).toBe(404);
      expect(response.json().message).toMatch(/not built; run "npm run build -w studio"/);
    } finally {
      await app.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
