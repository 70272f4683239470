/**
 * What streaming costs: the service's CPU for a streamed refine against the same answer
 * unstreamed, measured in one run. The fake sends the same text either way: one JSON answer,
 * or stream events written as fast as the socket takes them (one write each, so the service
 * reads them in whatever chunks TCP makes). Two answers: the bench's 650 characters in
 * 4-character pieces as OpenAI Responses events (163 events, a chat answer token by token), and
 * 3 MiB in 256-character pieces as Chat Completions events (DeepSeek's; 12,288 events): the
 * Responses API repeats the whole text in its closing events, and smaller pieces would pass
 * the 8 MiB cap on what a provider may send either way. The persona is the refine scenario's
 * (vocabulary, avoid, sign-off, `preserve`), so a stream fixes words in flight. No
 * Idempotency-Key: the ratio prices the streaming alone.
 */
import { Agent, request } from 'node:http';
import { CONTENT, JSON_AUTH, PROVIDER_KEY } from '../fixtures.js';
import { median, medianRound } from '../load.js';
import { ensureAlive, startFakeProvider, treeCpuSeconds, type Proc } from '../processes.js';
import { type Row, type ScenarioResult, info, judged } from '../report.js';
import type { Settings } from '../settings.js';
import { publicBasePath } from '../../test/fakes/provider-wire-formats.js';
import { withService } from './refine.js';

const SCENARIO = 'Stream CPU';
const TARGET = 1.5;

interface Size {
  name: string;
  /** Who the fake plays: its wire format decides what the events weigh. */
  provider: 'openai' | 'deepseek';
  /** Characters of the answer; 0 for the bench's CONTENT as it is. */
  chars: number;
  pieceChars: number;
  /** 0: every event at once (the service reads them in the chunks TCP makes); else one every this many ms, each in a chunk of its own, as a model's tokens arrive. */
  pieceDelayMs: number;
  /** Against the target, or shown beside it. */
  judged: boolean;
  /** Refines per measured batch, and how many run at once. */
  count: number;
  concurrency: number;
}

/** One refine; resolves with the whole body once it has all arrived. */
function refineOnce(agent: Agent, url: URL, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...JSON_AUTH, 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A refine answered 200, retried while the service sheds load (a 503 when its loop lags on a busy shared machine). */
async function refined(agent: Agent, url: URL, body: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const { status, text } = await refineOnce(agent, url, body);
    if (status === 200) return text;
    if (status !== 503 || attempt === 20) throw new Error(`refine answered ${status}: ${text.slice(0, 200)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The text a stream showed, its deltas joined, and its `done` event's response. */
function streamedText(body: string): { shown: string; response: string } {
  let shown = '';
  let response = '';
  for (const event of body.split('\n\n')) {
    const name = /^event: (\w+)$/m.exec(event)?.[1];
    const data = /^data: (.*)$/m.exec(event)?.[1];
    if (data === undefined) continue;
    if (name === 'delta') shown += (JSON.parse(data) as { text: string }).text;
    if (name === 'done') response = (JSON.parse(data) as { response: string }).response;
    if (name === 'error') throw new Error(`stream ended with an error: ${data}`);
  }
  return { shown, response };
}

/** The service's CPU per refine (µs) over `count` refines, `concurrency` at a time. */
async function cpuPerRefine(service: Proc, agent: Agent, body: string, count: number, concurrency: number): Promise<number> {
  const url = new URL(`${service.url}/v1/refine`);
  const before = treeCpuSeconds(service.pid);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        await refined(agent, url, body);
      }
    }),
  );
  return ((treeCpuSeconds(service.pid) - before) * 1e6) / count;
}

interface Round {
  whole: number;
  streamed: number;
}

async function measure(s: Settings, size: Size): Promise<{ rows: Row[]; ratio: number }> {
  const fake = await startFakeProvider(0, { mode: 'ok', reply: CONTENT, pieceChars: size.pieceChars, pieceDelayMs: size.pieceDelayMs, wholeEvents: true }, size.chars);
  try {
    const env = { PROVIDER_BASE_URL_DEEPSEEK: `${fake.url}/deepseek${publicBasePath.deepseek ?? '/v1'}` };
    return await withService(`stream-cpu-${size.provider}`, fake.url, async (service, personaId) => {
      const agent = new Agent({ keepAlive: true, maxSockets: size.concurrency });
      try {
        const body = (stream: boolean) => JSON.stringify({ provider: size.provider, providerApiKey: PROVIDER_KEY, personaId, content: CONTENT, stream });
        const url = new URL(`${service.url}/v1/refine`);
        // The invariant the ratio rests on: the same answer either way.
        const whole = (JSON.parse(await refined(agent, url, body(false))) as { response: string }).response;
        const { shown, response } = streamedText(await refined(agent, url, body(true)));
        if (shown !== whole || response !== whole) throw new Error(`${size.name}: the streamed answer differs from the unstreamed one`);
        const count = s.quick ? Math.max(1, Math.ceil(size.count / 10)) : size.count;
        // Warm-up: the JIT, the pools, the caches.
        await cpuPerRefine(service, agent, body(false), count, size.concurrency);
        await cpuPerRefine(service, agent, body(true), count, size.concurrency);
        const rounds: Round[] = [];
        for (let i = 0; i < s.runs; i++) {
          // Alternating, so a neighbour's burst weighs on both halves of a round alike.
          const first = i % 2 === 0;
          const a = await cpuPerRefine(service, agent, body(!first), count, size.concurrency);
          const b = await cpuPerRefine(service, agent, body(first), count, size.concurrency);
          rounds.push(first ? { whole: a, streamed: b } : { whole: b, streamed: a });
          ensureAlive(fake, service);
        }
        const typical = medianRound(rounds, (r) => r.streamed / r.whole);
        const ratio = median(rounds.map((r) => r.streamed / r.whole));
        const of = s.runs > 1 ? `, median of ${s.runs}` : '';
        const cpu = (us: number) => (us >= 10_000 ? `${(us / 1000).toFixed(0)} ms` : `${Math.round(us)} µs`);
        const pieces = Math.ceil((size.chars || CONTENT.length) / size.pieceChars).toLocaleString('en-US');
        const pace = size.pieceDelayMs > 0 ? `one every ${size.pieceDelayMs} ms` : 'all at once';
        const label = `${size.chars === 0 ? "the bench's answer" : `a ${size.name} answer`} (${pieces} pieces of ${size.pieceChars}, ${pace})`;
        const shownRatio = `${ratio.toFixed(2)}×`;
        return {
          ratio,
          rows: [
            info(SCENARIO, `CPU per refine, ${label}: unstreamed, streamed`, `${cpu(typical.whole)}, ${cpu(typical.streamed)} (${count} refines each, ${size.concurrency} at a time)`),
            size.judged
              ? judged(SCENARIO, `CPU of a streamed refine ÷ the same answer unstreamed, ${label}${of}`, ratio, shownRatio, { atMost: TARGET, text: `≤ ${TARGET}×` })
              : info(SCENARIO, `CPU of a streamed refine ÷ the same answer unstreamed, ${label}${of}`, shownRatio),
          ],
        };
      } finally {
        agent.destroy();
      }
    }, { env });
  } finally {
    await fake.stop();
  }
}

export async function streamCpu(s: Settings): Promise<ScenarioResult> {
  const sizes: Size[] = [
    { name: 'chat-sized', provider: 'openai', chars: 0, pieceChars: 4, pieceDelayMs: 1, judged: true, count: 200, concurrency: 16 },
    { name: 'chat-sized', provider: 'openai', chars: 0, pieceChars: 4, pieceDelayMs: 0, judged: false, count: 1_000, concurrency: 8 },
    { name: '3 MiB', provider: 'deepseek', chars: 3 * 1024 * 1024, pieceChars: 256, pieceDelayMs: 0, judged: true, count: 3, concurrency: 1 },
  ];
  const rows: Row[] = [];
  for (const size of sizes) rows.push(...(await measure(s, size)).rows);
  return {
    rows,
    notes: [
      "Stream CPU: the service's CPU (/proc) per refine, streamed and not, in alternating batches after a warm-up; the fake writes each event in one write, paced (each read in a chunk of its own) or all at once (read in the chunks TCP makes); the refine persona (vocabulary, avoid, sign-off, preserve); no Idempotency-Key.",
    ],
  };
}
