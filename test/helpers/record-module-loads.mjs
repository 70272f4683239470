// Preloaded with `node --import`: appends the URL of every module the process loads to
// the file named by RECORD_MODULE_LOADS, one per line (hooks run on their own thread).
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
    import { appendFileSync } from 'node:fs';
    let file;
    export function initialize(data) { file = data.file; }
    export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context);
      appendFileSync(file, resolved.url + '\\n');
      return resolved;
    }
  `)}`,
  { data: { file: process.env.RECORD_MODULE_LOADS } },
);
