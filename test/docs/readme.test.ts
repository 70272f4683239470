/**
 * The README and docs/ are executable: every shell command of every ```sh block runs, file after
 * file, in one bash (`set -u`: a variable no earlier block set fails the step) against a fresh
 * server, and prints what the document shows (ids, keys, dates and token counts masked; `…`
 * stands for anything on the line). A block that cannot run here says why on the line above its
 * fence (`<!-- readme-test: not run: … -->`); one that needs PostgreSQL and Redis says so and runs
 * when they are reachable. Where a command needs a provider key, the key is a fake one and the
 * provider is the fake provider server speaking that provider's real wire format.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { postgresAvailable, redisAvailable } from '../helpers/services.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { expectedPattern, normalizeOutput, type ShellStep, shellBlockMarkers, shellSteps, withoutBlocks } from './readme-shell.js';

/** In the order a newcomer meets them (each may use what an earlier one exported), then the rest of docs/. */
const FIRST = ['README.md', 'docs/versions.md', 'docs/streaming.md', 'docs/usage-cache-fallbacks.md', 'docs/rules-and-attributes.md', 'docs/refine.md'];
/** Last: it points the shell at another database. */
const LAST = ['docs/deploy.md'];
const rest = readdirSync('docs')
  .filter((file) => file.endsWith('.md'))
  .map((file) => `docs/${file}`)
  .filter((path) => !FIRST.includes(path) && !LAST.includes(path))
  .sort();
const DOCUMENTS = [...FIRST, ...rest, ...LAST].map((path) => ({ path, text: readFileSync(path, 'utf8') }));

/** One bash for the whole README, so `export PID=…` carries from block to block as in a terminal. */
class Shell {
  private output = '';
  private waiting?: () => void;
  private count = 0;

  constructor(private readonly bash: ChildProcessWithoutNullStreams) {
    bash.once('exit', () => this.waiting?.());
    bash.stdout.on('data', (chunk) => {
      this.output += String(chunk);
      this.waiting?.();
    });
    bash.stderr.on('data', (chunk) => {
      this.output += String(chunk);
    });
  }

  /** Runs one command; resolves with everything it printed and its exit status. */
  async run(command: string): Promise<{ output: string; status: number }> {
    // An unset variable makes a non-interactive bash exit: that step failed, and so does every later one.
    if (this.bash.exitCode !== null) return { output: '(bash has exited)', status: this.bash.exitCode };
    const marker = `__readme_step_${++this.count}__`;
    this.output = '';
    this.bash.stdin.write(`${command}\nprintf '\\n${marker} %s\\n' "$?"\n`);
    const end = new RegExp(`\\n${marker} (\\d+)\\n`);
    for (;;) {
      const done = end.exec(this.output);
      if (done) return { output: this.output.slice(0, done.index), status: Number(done[1]) };
      if (this.bash.exitCode !== null) return { output: this.output, status: this.bash.exitCode };
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }
}

describe('the README, run as written', () => {
  let server: TestServer;
  let fake: FakeProviderServer;
  let shell: Shell;
  let bash: ChildProcessWithoutNullStreams;

  beforeAll(async () => {
    fake = await startFakeProviderServer();
    server = await startTestServer({
      env: { PROVIDER_BASE_URL_OPENAI: fake.baseUrl('openai'), PROVIDER_BASE_URL_ANTHROPIC: fake.baseUrl('anthropic'), LOG_LEVEL: 'warn' },
    });
    bash = spawn('bash', ['--noprofile', '--norc'], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        PRK: server.key,
        BASE: server.url,
        OPENAI_API_KEY: 'fake-openai-key-for-readme',
        ANTHROPIC_API_KEY: 'fake-anthropic-key-for-readme',
      },
    });
    shell = new Shell(bash);
    bash.stdin.write('set -u\n');
  });

  afterAll(async () => {
    bash?.kill();
    await server?.close();
    await fake?.close();
  });

  const servicesUp = postgresAvailable && redisAvailable;
  const steps: Array<ShellStep & { section: string }> = DOCUMENTS.flatMap(({ path, text }) => {
    const { notRun, needsServices } = shellBlockMarkers(text);
    const skipped = [...notRun.map(({ line }) => line), ...(servicesUp ? [] : needsServices)];
    return shellSteps(withoutBlocks(text, skipped), 1).map((step) => ({ ...step, section: path }));
  });

  it('has the commands it is meant to run', () => {
    expect(steps.length).toBeGreaterThan(40);
    // Every command talks to $BASE: one that names the default port would miss the server the reader started elsewhere.
    expect(steps.filter((step) => /(?:127\.0\.0\.1|localhost):8080\b/.test(step.command) && !step.command.startsWith('export BASE='))).toEqual([]);
  });

  it('runs every shell block, or says on the block why it cannot', () => {
    for (const { path, text } of DOCUMENTS) {
      const { notRun, otherShells } = shellBlockMarkers(text);
      expect(otherShells, `${path}: shell blocks must be \`\`\`sh to be run`).toEqual([]);
      for (const { reason } of notRun) expect(reason.length, path).toBeGreaterThan(10);
    }
  });

  // Every block of the README and docs/, the two-instance cluster's start among them, on a busy machine.
  it('prints, command after command, what the README shows', async () => {
    const failures: string[] = [];
    for (const step of steps) {
      // The reader pastes their own key and address; the test's are already in the environment.
      if (/^export (PRK|BASE)=/.test(step.command)) continue;
      // The fallback example shows what happens when the primary provider fails: make it fail.
      if (step.command.includes('"fallbacks"')) fake.enqueue('serverError');
      const { output, status } = await shell.run(step.command);
      const where = `${step.section}:${step.line}: ${step.command.split('\n')[0]}`;
      if (status !== 0) failures.push(`${where}\n  exited ${status}:\n${output}`);
      else if (step.expected.length > 0 && !expectedPattern(step.expected).test(normalizeOutput(output))) {
        failures.push(`${where}\n  the README shows:\n    ${step.expected.join('\n    ')}\n  it printed:\n    ${output.trim().split('\n').join('\n    ')}`);
      } else if (step.expected.length === 0 && /\{"error":\d+/.test(output)) {
        failures.push(`${where}\n  shows no output, but answered an error:\n    ${output.trim()}`);
      }
    }
    expect(failures.join('\n\n')).toBe('');
  }, 180_000);
});
