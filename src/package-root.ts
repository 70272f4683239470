import { fileURLToPath } from 'node:url';

/**
 * The package's root directory. This module sits one level below it in src/, in tsc's dist/
 * and inside the bundled dist/server.js alike, so the same relative URL works from all three.
 */
export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
