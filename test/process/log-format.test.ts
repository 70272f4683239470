import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordLoadedModules, runServerExpectingFailure, SERVER_ENTRY, startServerProcess } from '../helpers/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'persona-refine-logs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ESCAPE = '\u001b[';
// Load shedding off: on a busy machine the event-loop check would turn these requests into 503s.
const database = (name: string) => ({ DATABASE_URL: `sqlite:${join(dir, `${name}.sqlite`)}`, LOAD_SHED_EVENT_LOOP_DELAY_MS: '0' });
const logLines = (output: string) => output.split('\n').filter((line) => line.startsWith('{'));

describe('log lines', () => {
  it('are JSON when stdout is not a terminal, and nothing of the pretty printer is loaded', async () => {
    const loaded = join(dir, 'json-modules.txt');
    const record = recordLoadedModules(loaded);
    const server = await startServerProcess({ ...database('json'), ...record.env }, 30_000, record.nodeArgs);
    await fetch(`${server.url}/healthz`);
    await server.stop();

    const output = server.output();
    expect(output).not.toContain(ESCAPE);
    const lines = logLines(output).map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(lines.some((line) => line.level === 30 && line.msg.startsWith('Server listening at http://127.0.0.1:'))).toBe(true);
    // Outside the first start's banner, every line is a JSON log line.
    const banner = output.slice(output.indexOf('\nCreated account'), output.indexOf('/docs\n') + 6);
    for (const line of output.replace(banner, '').split('\n').filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();

    const modules = readFileSync(loaded, 'utf8');
    expect(modules).toContain('/dist/server.js');
    expect(modules).not.toContain('pretty-log');
  });

  it('are coloured text with LOG_FORMAT=pretty, and plain text when NO_COLOR is set too', async () => {
    const pretty = await startServerProcess({ ...database('pretty'), LOG_FORMAT: 'pretty' });
    await fetch(`${pretty.url}/healthz`);
    await pretty.stop();
    expect(pretty.output()).toMatch(/\d\d:\d\d:\d\d\.\d{3}\u001b\[39m \u001b\[32mINFO \u001b\[39m Server listening at http:\/\/127\.0\.0\.1:\d+/);
    expect(pretty.output()).toMatch(/INFO \u001b\[39m request completed \u001b\[90mreqId=\S+ method=GET url=\/healthz statusCode=200 ms=/);
    expect(logLines(pretty.output())).toEqual([]);

    const plain = await startServerProcess({ ...database('pretty'), LOG_FORMAT: 'pretty', NO_COLOR: '1' });
    await plain.stop();
    expect(plain.output()).not.toContain(ESCAPE);
    expect(plain.output()).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  Server listening at http:\/\/127\.0\.0\.1:\d+$/m);
  });

  it('are coloured text when stdout is a terminal', async () => {
    // `script` gives the server a real pseudo-terminal as stdout.
    const child = spawn('script', ['-qfec', `${process.execPath} ${SERVER_ENTRY}`, '/dev/null'], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', ...database('tty') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    const exited = once(child, 'exit');
    await expect.poll(() => output, { timeout: 10_000 }).toContain('Persona Studio at');
    child.kill('SIGTERM');
    await exited;
    expect(output).toMatch(/\u001b\[32mINFO \u001b\[39m Server listening at http:\/\/127\.0\.0\.1:\d+/);
    expect(output).not.toContain('{"level"');
  });

  it('are written in batches, yet a request line appears within about a second while the server runs', async () => {
    const server = await startServerProcess(database('batched'));
    try {
      // The start-up lines are written at once, before the server says where it listens.
      expect(logLines(server.output()).some((line) => line.includes('"msg":"Server listening at'))).toBe(true);
      const id = 'batched-log-probe';
      await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': id } });
      const written = () => logLines(server.output()).some((line) => line.includes(`"reqId":"${id}"`) && line.includes('"msg":"request completed"'));
      // No further traffic fills the batch: the line goes out on the timer, not when the process exits.
      await expect.poll(written, { timeout: 5_000, interval: 100 }).toBe(true);
      expect(server.child.exitCode).toBeNull();
    } finally {
      await server.stop();
    }
  });

  it('refuses an unknown LOG_FORMAT with one line naming the variable', async () => {
    const { code, output } = await runServerExpectingFailure({ ...database('bad'), LOG_FORMAT: 'xml' });
    expect(code).toBe(1);
    expect(output.trim()).toBe('invalid configuration: LOG_FORMAT must be json or pretty, got "xml"');
  });
});

describe('the first start', () => {
  it("prints the key, the studio's URL and the docs' URL once; later starts log where the studio and docs are", async () => {
    const first = await startServerProcess(database('first'));
    const port = new URL(first.url).port;
    const output = first.output();
    expect(output).toMatch(/Created account "default"\. Its API key \(shown only this once\):\n\n {2}prk_[A-Za-z0-9_-]{43}\n/);
    expect(output).toContain(`Persona Studio  http://127.0.0.1:${port}/studio/\nAPI docs        http://127.0.0.1:${port}/docs\n`);
    expect((await fetch(`${first.url}/studio/`)).status).toBe(200);
    expect((await fetch(`${first.url}/docs`, { redirect: 'manual' })).status).toBeLessThan(400);
    await first.stop();

    const second = await startServerProcess(database('first'));
    expect(second.output()).not.toContain('Created account');
    expect(second.output()).not.toContain('prk_');
    const ready = logLines(second.output()).map((line) => JSON.parse(line) as { msg: string }).find((line) => line.msg.startsWith('Persona Studio at'));
    expect(ready?.msg).toBe(`Persona Studio at ${second.url}/studio/, API docs at ${second.url}/docs`);
    await second.stop();
  });
});
