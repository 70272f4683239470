/**
 * The "Use it from any OpenAI client" sections of the README and docs/clients.md run as written:
 * each ```ts block is compiled by esbuild and run by node from the repository root (so `openai`,
 * `ai` and `@ai-sdk/openai-compatible` resolve from its node_modules), with BASE, PRK, PID and
 * fake provider keys in its environment, against a real server whose providers are the fake
 * provider servers. A block in another language says on the line above its fence why it cannot
 * run here (`<!-- readme-test: not run: … -->`).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { transform } from 'esbuild';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RefineFixture, startRefineFixture } from '../helpers/refine-fixture.js';
import { section } from './readme-shell.js';

const SECTION = 'Use it from any OpenAI client';
const DOCUMENTS = ['README.md', 'docs/clients.md'];
const NOT_RUN = /^<!-- readme-test: not run: (.{10,}) -->$/;
const KEYS = { OPENAI_API_KEY: 'sk-FAKE-not-a-key-openai-snippets', ANTHROPIC_API_KEY: 'sk-FAKE-not-a-key-anthropic-snippets' };
const PERSONA = { name: 'Acme support', attributes: { tone: 'warm, direct', vocabulary: { customers: 'members' }, avoid: ['synergy'] } };
const REPLY = 'Good news for our customers: the refund went out today.';
const FIXED = 'Good news for our members: the refund went out today.';

interface CodeBlock {
  document: string;
  line: number;
  language: string;
  code: string;
  /** The reason on the line above its fence, when it is not run. */
  notRun: string | undefined;
}

function codeBlocks(document: string): CodeBlock[] {
  const { text, firstLine } = section(readFileSync(document, 'utf8'), SECTION);
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w+)/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.indexOf('```', i + 1);
    blocks.push({
      document,
      line: firstLine + i,
      language: fence[1]!,
      code: lines.slice(i + 1, end).join('\n'),
      notRun: NOT_RUN.exec(lines[i - 1] ?? '')?.[1],
    });
    i = end;
  }
  return blocks;
}

const BLOCKS = DOCUMENTS.flatMap(codeBlocks);
const RUN = BLOCKS.filter((block) => block.language === 'ts' && block.notRun === undefined);

function runSnippet(code: string, env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module'], { cwd: process.cwd(), env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(code);
  });
}

describe(`"${SECTION}", run as written`, () => {
  let f: RefineFixture;
  let personaId: string;

  beforeAll(async () => {
    f = await startRefineFixture({ env: { PROVIDER_TIMEOUT_MS: '10000' } });
    personaId = ((await (await f.server.request('/v1/personas', { method: 'POST', json: PERSONA })).json()) as { id: string }).id;
  });
  afterAll(() => f?.close());
  beforeEach(() => f.fake.reset());

  it('has TypeScript blocks to run in both documents, and says why each other block is not run', () => {
    expect(new Set(RUN.map((block) => block.document))).toEqual(new Set(DOCUMENTS));
    const unexplained = BLOCKS.filter((block) => block.language !== 'ts' && block.notRun === undefined);
    expect(unexplained.map((block) => `${block.document}:${block.line} (${block.language})`)).toEqual([]);
  });

  it.each(RUN.map((block) => [`${block.document}:${block.line}`, block] as const))('%s prints the persona\'s answer, from one provider call each', async (_where, block) => {
    f.fake.setBehaviour({ mode: 'ok', reply: REPLY });
    const { code } = await transform(block.code, { loader: 'ts', format: 'esm', target: 'node20' });
    const completions = (block.code.match(/generateText\(|chat\.completions\.create\(/g) ?? []).length;
    const { status, stdout, stderr } = await runSnippet(code, { BASE: f.server.url, PRK: f.server.key, PID: personaId, ...KEYS });
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout.trim().split('\n')).toEqual(Array(completions).fill(FIXED));
    // One provider call per completion: the answer keeps the rules once the vocabulary is fixed.
    expect(f.fake.requests).toHaveLength(completions);
    for (const request of f.fake.requests) {
      const sent = JSON.stringify(request.body);
      // The persona's instructions first, the caller's message after them.
      expect(sent.indexOf(PERSONA.attributes.tone)).toBeGreaterThan(-1);
      expect(sent.indexOf(PERSONA.attributes.tone)).toBeLessThan(sent.indexOf('their refund went out today'));
      expect(JSON.stringify(request.headers)).toMatch(new RegExp(`${KEYS.OPENAI_API_KEY}|${KEYS.ANTHROPIC_API_KEY}`));
    }
  });
});
