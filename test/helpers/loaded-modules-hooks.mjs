// Module hooks (node:module register) that append every module URL a process loads through
// `import` to the file named by LOADED_MODULES_FILE: proof of what start-up did NOT load.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(process.env.LOADED_MODULES_FILE, `${resolved.url}\n`);
  return resolved;
}
