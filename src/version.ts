import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-root.js';

const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };

/** The package's version, e.g. for OpenTelemetry's `service.version`. */
export const PACKAGE_VERSION = pkg.version;

/** Names the running build in X-Service-Version. */
export const SERVICE_VERSION = `persona-refine/${PACKAGE_VERSION}`;
