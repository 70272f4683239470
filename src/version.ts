import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

/** Names the running build in X-Service-Version. */
export const SERVICE_VERSION = `persona-refine/${pkg.version}`;
