import { defineConfig } from 'vite';

/**
 * The service serves the build at /studio/ under a strict Content-Security-Policy
 * (src/routes/studio.ts): one external module script and one stylesheet, nothing inline.
 */
export default defineConfig({
  base: '/studio/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Every browser that runs ES2022 supports modulepreload; the polyfill would only add bytes.
    modulePreload: { polyfill: false },
    // Small assets would otherwise become data: URLs; keep every asset a file the CSP names as 'self'.
    assetsInlineLimit: 0,
  },
  // `npm run dev -w studio` against a service already running on the default port.
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
});
