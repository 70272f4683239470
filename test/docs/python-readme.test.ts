/**
 * The Python client installs as README.md's "From Python and from agents" says, both ways (the
 * command, and the offline form after its `# offline:`), each in a fresh venv, and its Python
 * block then runs against a fresh server and prints what the block's comments say.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonAvailable } from '../helpers/python.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { section } from './readme-shell.js';

const run = promisify(execFile);
const SECTION = section(await readFile('README.md', 'utf8'), 'From Python and from agents').text;

/** The fenced blocks of one language in the section, in order. */
const blocks = (language: string) => [...SECTION.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]!);

/** The two install commands of the sh block: `pip install ./clients/python   # offline: <the offline form>`. */
function installCommands(): { online: string; offline: string } {
  const [sh] = blocks('sh');
  const match = /^(pip install \.\/clients\/python)\s+# offline: (.+)$/m.exec(sh ?? '');
  if (!match) throw new Error(`the sh block does not read "pip install ./clients/python   # offline: …": ${sh}`);
  return { online: match[1]!, offline: match[2]!.trim() };
}

/** What the script prints: the comment after each `print(` line, in order. */
function shownOutput(script: string): string {
  return script
    .split('\n')
    .filter((line) => line.includes('print('))
    .map((line) => /#\s(.*)$/.exec(line)?.[1] ?? '(no comment says what this prints)')
    .join('\n');
}

describe.skipIf(!pythonAvailable)('README.md, from Python', () => {
  let server: TestServer;
  let work: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { LOG_LEVEL: 'warn' } });
    work = await mkdtemp(join(tmpdir(), 'python-readme-'));
    // A copy, so the builds' build/ and *.egg-info stay out of the checkout.
    await cp('clients/python', join(work, 'clients/python'), { recursive: true, filter: (path) => !/__pycache__|\/tests($|\/)|\.egg-info|\/build($|\/)/.test(path) });
  });

  afterAll(async () => {
    await server?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it.each(['online', 'offline'] as const)('installs with the %s command in a fresh venv and runs the block', async (form) => {
    const venv = join(work, `venv-${form}`);
    await run('python3', ['-m', 'venv', venv]);
    // The venv's pip first on the PATH, as after `source venv/bin/activate`. No retries: an
    // index that cannot be reached (no network) is passed over at once for the local one.
    const env = { ...process.env, PATH: `${join(venv, 'bin')}:${process.env.PATH}`, PIP_RETRIES: '0', PIP_DISABLE_PIP_VERSION_CHECK: '1', VIRTUAL_ENV: venv };
    await run('bash', ['-euo', 'pipefail', '-c', installCommands()[form]], { cwd: work, env, timeout: 120_000 });

    const python = join(venv, 'bin', 'python');
    const where = await run(python, ['-c', 'import pathlib, persona_refine; p = pathlib.Path(persona_refine.__file__); print(p.parent.parent.name, p.with_name("py.typed").is_file())'], { cwd: work });
    expect(where.stdout.trim()).toBe('site-packages True');

    const [script] = blocks('python');
    expect(script, 'the section has a ```python block').toBeDefined();
    const { stdout } = await run(python, ['-X', 'dev', '-W', 'error', '-c', script!], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', PERSONA_REFINE_URL: server.url, PERSONA_REFINE_API_KEY: server.key },
      timeout: 60_000,
    });
    expect(stdout.trimEnd()).toBe(shownOutput(script!));
  }, 150_000);
});
