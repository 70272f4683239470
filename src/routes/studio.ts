/**
 * Persona Studio (studio/): a single-page app served as static files at /studio/, the canonical
 * URL (/studio redirects there). It talks only to the public /v1 API, so the server's part is
 * these files and the headers that make them safe to serve next to an API holding keys.
 */
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { notFound } from '../errors.js';
import { PACKAGE_ROOT } from '../package-root.js';

/** Where `npm run build -w studio` writes. */
export const STUDIO_BUILD_DIR = join(PACKAGE_ROOT, 'studio', 'dist') + sep;

/** Only the service's own scripts, styles and API; nothing inline, no other origin, no framing. */
export const STUDIO_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "object-src 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

/** Also sent by /docs (src/http/openapi.ts), with its own CSP: a page next to the API is never framed or sniffed. */
export const SECURITY_HEADERS = {
  'content-security-policy': STUDIO_CSP,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

// Vite puts a content hash in every file name under assets/: a new build means new names.
const IMMUTABLE = 'public, max-age=31536000, immutable';
// index.html names the current assets, so it is revalidated (cheaply, by ETag) every time.
const REVALIDATE = 'no-cache';

export interface StudioRouteOptions {
  /** The built studio; tests may point elsewhere. */
  buildDir?: string;
}

export const studioRoutes: FastifyPluginAsync<StudioRouteOptions> = async (app, { buildDir = STUDIO_BUILD_DIR }) => {
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(SECURITY_HEADERS);
  });

  // The server's root: a browser opening the address the start printed lands in the studio; a
  // program (curl, an SDK) gets where everything is. Both are cheap and reveal nothing private.
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    reply.header('vary', 'accept');
    if (/\btext\/html\b/.test(request.headers.accept ?? '')) return reply.redirect('/studio/', 302);
    return { service: 'persona-refine', studio: '/studio/', docs: '/docs', openapi: '/v1/openapi.json', health: '/healthz' };
  });

  if (!existsSync(join(buildDir, 'index.html'))) {
    const message = 'Persona Studio is not built; run "npm run build -w studio" (npm start builds it when needed)';
    app.log.warn(message);
    const hidden = { schema: { hide: true } };
    app.get('/studio', hidden, async () => {
      throw notFound(message);
    });
    app.get('/studio/*', hidden, async () => {
      throw notFound(message);
    });
    return;
  }

  const assetsDir = join(buildDir, 'assets') + sep;
  await app.register(fastifyStatic, {
    root: buildDir,
    prefix: '/studio',
    redirect: true,
    decorateReply: false,
    dotfiles: 'ignore',
    cacheControl: false,
    setHeaders: (reply, path) => {
      reply.header('cache-control', path.startsWith(assetsDir) ? IMMUTABLE : REVALIDATE);
    },
  });
};
