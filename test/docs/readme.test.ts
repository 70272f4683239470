/**
 * The README is executable: every shell command of the sections a newcomer pastes first runs,
 * in the README's order, in one bash against a fresh server, and prints what the README shows
 * (ids, keys, dates and token counts masked; `…` in the README stands for anything on the line).
 * Where a command needs a provider key, the key is a fake one and the provider is the fake
 * provider server speaking that provider's real wire format.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { expectedPattern, normalizeOutput, section, type ShellStep, shellSteps } from './readme-shell.js';

/** In the order a newcomer meets them; each section's commands may use what an earlier one exported. */
const SECTIONS = [
  'Walkthrough',
  'Versions, labels and rollbacks',
  'Try it offline first',
  'Streaming',
  'Usage, cache and fallbacks',
  '`preserve`: numbers, links, code and placeholders survive',
];

const README = readFileSync('README.md', 'utf8');

/** One bash for the whole README, so `export PID=…` carries from block to block as in a terminal. */
class Shell {
  private output = '';
  private waiting?: () => void;
  private count = 0;

  constructor(private readonly bash: ChildProcessWithoutNullStreams) {
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
    const marker = `__readme_step_${++this.count}__`;
    this.output = '';
    this.bash.stdin.write(`${command}\nprintf '\\n${marker} %s\\n' "$?"\n`);
    const end = new RegExp(`\\n${marker} (\\d+)\\n`);
    for (;;) {
      const done = end.exec(this.output);
      if (done) return { output: this.output.slice(0, done.index), status: Number(done[1]) };
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
  });

  afterAll(async () => {
    bash?.kill();
    await server?.close();
    await fake?.close();
  });

  const steps: Array<ShellStep & { section: string }> = SECTIONS.flatMap((title) => {
    const { text, firstLine } = section(README, title);
    return shellSteps(text, firstLine).map((step) => ({ ...step, section: title }));
  });

  it('has the commands it is meant to run', () => {
    expect(steps.length).toBeGreaterThan(25);
    // Every command talks to $BASE: one that names a port would miss the server the reader started elsewhere.
    expect(steps.filter((step) => step.command.includes('127.0.0.1:8080') && !step.command.startsWith('export BASE='))).toEqual([]);
  });

  it('prints, command after command, what the README shows', async () => {
    const failures: string[] = [];
    for (const step of steps) {
      // The reader pastes their own key and address; the test's are already in the environment.
      if (/^export (PRK|BASE)=/.test(step.command)) continue;
      // The fallback example shows what happens when the primary provider fails: make it fail.
      if (step.command.includes('"fallbacks"')) fake.enqueue('serverError');
      const { output, status } = await shell.run(step.command);
      const where = `README.md:${step.line} (${step.section}): ${step.command.split('\n')[0]}`;
      if (status !== 0) failures.push(`${where}\n  exited ${status}:\n${output}`);
      else if (step.expected.length > 0 && !expectedPattern(step.expected).test(normalizeOutput(output))) {
        failures.push(`${where}\n  the README shows:\n    ${step.expected.join('\n    ')}\n  it printed:\n    ${output.trim().split('\n').join('\n    ')}`);
      } else if (step.expected.length === 0 && /\{"error":\d+/.test(output)) {
        failures.push(`${where}\n  shows no output, but answered an error:\n    ${output.trim()}`);
      }
    }
    expect(failures.join('\n\n')).toBe('');
  });
});
