/** `persona-refine refine --stream` against a real server and the fake provider streaming. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RefineFixture, startRefineFixture } from '../../test/helpers/refine-fixture.js';
import { EXIT_BELOW_BAR, EXIT_STREAM_REPLACED } from '../src/cli/exit-codes.js';
import { run } from '../src/cli/run.js';
import { PersonaRefine } from '../src/index.js';

const PROVIDER_KEY = 'sk-cli-stream-provider-key-24680';
const REPLY = 'Our customers can find us on github now, and the team answers every question the same day — no synergy needed.';
const FIXED = 'Our members can find us on GitHub now, and the team answers every question the same day — no synergy needed.';

describe('persona-refine refine --stream', () => {
  let f: RefineFixture;
  let personaId: string;

  /** Runs the CLI in-process, keeping every stdout write apart to see the text arrive piece by piece. */
  async function cli(args: string[]) {
    const writes: string[] = [];
    let stderr = '';
    const code = await run(['refine', '--stream', '--persona', personaId, '--provider', 'anthropic', ...args], {
      env: { PERSONA_REFINE_API_KEY: f.server.key, PERSONA_REFINE_URL: f.server.url, PERSONA_REFINE_PROVIDER_KEY: PROVIDER_KEY },
      cwd: process.cwd(),
      stdin: Readable.from(['Tell our customers.']),
      stdout: { write: (text: string) => writes.push(text) },
      stderr: { write: (text: string) => (stderr += text), isTTY: false },
    });
    return { code, writes, stdout: writes.join(''), stderr };
  }

  beforeAll(async () => {
    f = await startRefineFixture({ env: { PROVIDER_TIMEOUT_MS: '5000' } });
    const client = new PersonaRefine({ apiKey: f.server.key, baseUrl: f.server.url });
    personaId = (await client.personas.create({ name: 'CLI stream', attributes: { vocabulary: { customers: 'members' }, casing: ['GitHub'], avoid: ['synergy'] } })).id;
  });
  afterAll(() => f.close());
  beforeEach(() => f.fake.reset());

  it('prints the text as it arrives, fixed in flight, then rules still broken and tokens on stderr; exit 3', async () => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY, pieceChars: 3, pieceDelayMs: 5 });
    const result = await cli([]);
    expect(result.code).toBe(EXIT_BELOW_BAR);
    expect(result.stdout).toBe(`${FIXED}\n`);
    expect(result.writes.length).toBeGreaterThan(2);
    for (const piece of result.writes) expect(piece).not.toMatch(/customers|github/);
    expect(result.stderr).toMatch(/^rules still broken: avoid=1; \d+ input \+ \d+ output tokens\n$/);
    expect(f.fake.requests[0]!.headers['x-api-key']).toBe(PROVIDER_KEY);
  });

  it('a provider error mid-stream: the text so far is out, the error on stderr, exit 1', async () => {
    f.fake.setBehaviour({ mode: 'streamError', reply: REPLY, failAfterPieces: 30, pieceDelayMs: 5 });
    const result = await cli([]);
    expect(result.code).toBe(1);
    expect(result.stdout.length).toBeGreaterThan(0);
    expect(FIXED.startsWith(result.stdout)).toBe(true);
    expect(result.stderr).toMatch(/^persona-refine: provider "anthropic" (failed|is overloaded) \(HTTP 5\d\d/);
    expect(result.stderr).not.toContain(PROVIDER_KEY.slice(4, 12));
    expect(f.fake.requestCount).toBe(1);
  });

  it('refuses files: a stream is printed, not written', async () => {
    const result = await cli(['a.txt']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--stream refines stdin only');
  });
});

describe('persona-refine refine --stream against a done event that replaces what was streamed', () => {
  it('the note on stderr, nothing more on stdout (no wrong text then right text), its own exit code', async () => {
    // A hand-written service: the providers listing, then a stream whose result is not its pieces.
    const server = createServer((req, res) => {
      if (req.url === '/v1/providers') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify([{ id: 'rules', name: 'Rules only', requiresKey: false }]));
        return;
      }
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-persona-version': '3' });
      res.end(
        'event: delta\ndata: {"text":"Here is"}\n\n' +
          'event: done\ndata: {"response":"Ahoy! Yer order be on its way.","violations":{},"usage":{"providerCalls":1},"replaced":true}\n\n',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      let stdout = '';
      let stderr = '';
      const code = await run(['refine', '--stream', '--persona', 'p1', '--provider', 'rules'], {
        env: { PERSONA_REFINE_API_KEY: 'pr_test_key', PERSONA_REFINE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` },
        cwd: process.cwd(),
        stdin: Readable.from(['Tell our customers.']),
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: (text: string) => (stderr += text), isTTY: false },
      });
      expect(code).toBe(EXIT_STREAM_REPLACED);
      expect(EXIT_STREAM_REPLACED).not.toBe(EXIT_BELOW_BAR);
      expect(stdout).toBe('Here is\n');
      expect(stderr).toContain('note: the streamed text was not the final result; do not use it');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
