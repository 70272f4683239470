/**
 * POST /v1/chat/completions, the drop-in route for OpenAI's clients, measured two ways:
 * - CPU per completion at a fixed rate, against a bare chat proxy (bench/bare-chat-proxy-server.ts)
 *   and against a refine of the same answer, all three in front of the same instant fake, in the
 *   same rounds (the order rotates from round to round, so drift in what the neighbours do hits
 *   them alike), the median round reported;
 * - provider calls and tokens per text: one completion per text against what an app does
 *   today for the same texts (its own generation straight to the provider, then POST /v1/refine
 *   of the answer), for a persona whose rules the answer keeps and one whose required rule it
 *   breaks (the repair call).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type FakeBehaviour, type FakeProviderServer, startFakeProviderServer } from '../../test/fakes/provider-server.js';
import { CONTENT, JSON_AUTH, PROVIDER_KEY, REFINE_PERSONA, refineBody, seedPersonas } from '../fixtures.js';
import { type Latency, type Target, medianRound, openLoop } from '../load.js';
import { RESULTS_DIR, ensureAlive, startBareChatProxy, startFakeProvider } from '../processes.js';
import { type Row, type ScenarioResult, cpu, info, judged, latency, perSecond } from '../report.js';
import type { Settings } from '../settings.js';
import { SOCKETS, keptUp, withService } from './refine.js';

const SCENARIO = 'Chat completions';
/**
 * Not refine's 1,000/s: on the 2-core machine a refine there takes more than a core, so its
 * figures measured a queue (BENCHMARKS.md, issue 28). At 500/s all three keep up.
 */
const CHAT_RATE = 500;
/** What the route resolves `openai` to; the app's own generation names it too. */
const OPENAI_MODEL = 'gpt-5.4-mini';
const APP_SYSTEM = 'You answer the customers of Acme, a hardware shop, in a few sentences.';

/**
 * The CPU rounds' provider answers every request with the refine's own content: the completion
 * and the refine then get the same answer and apply the same rules to it (and `preserve`, which
 * holds for the refine alone, finds everything in it).
 */
const SAME_ANSWER: FakeBehaviour = { mode: 'ok', reply: CONTENT };

/**
 * The counting rounds' provider answers what it is asked, about its size: a refine gets the text
 * inside its element back, a question an answer as long. The fake's default echoes the whole user
 * message, which would bill a refine's reply for its rewrite instructions too.
 */
const ANSWER_WHAT_IS_ASKED: FakeBehaviour = {
  mode: 'ok',
  reply: (userText) => `Rewritten: ${/.*<text-to-rewrite[^>]*>\n?([\s\S]*?)\n?<\/text-to-rewrite[^>]*>/s.exec(userText)?.[1] ?? userText}`,
};

/** A persona whose required `maxWords` every answer of the fake breaks: one repair call, and it stays broken. */
const REPAIR_PERSONA = { name: 'Terse support', attributes: { ...REFINE_PERSONA.attributes, maxWords: 5 } };

/** What an app sends through the `openai` package: no Idempotency-Key (the package never sends one). */
const chatHeaders = (personaId: string) => ({ ...JSON_AUTH, 'x-persona': personaId, 'x-provider-api-key': PROVIDER_KEY });
const messages = (prompt: string) => [{ role: 'system', content: APP_SYSTEM }, { role: 'user', content: prompt }];
const chatBody = (prompt: string) => JSON.stringify({ model: 'openai', messages: messages(prompt) });

/** The provider request the service makes for a completion, from a recording fake; also proves it is one call. */
async function captureChatRequest(): Promise<{ path: string; body: string }> {
  const recorder = await startFakeProviderServer({ record: true, behaviour: SAME_ANSWER });
  try {
    return await withService('chat-capture', recorder.url, async (service, personaId) => {
      const response = await fetch(`${service.url}/v1/chat/completions`, { method: 'POST', headers: chatHeaders(personaId), body: chatBody(CONTENT) });
      if (response.status !== 200) throw new Error(`capture completion failed: ${response.status} ${await response.text()}`);
      if (recorder.requests.length !== 1) throw new Error(`a completion made ${recorder.requests.length} provider calls, expected 1 (repair call?)`);
      const [recorded] = recorder.requests;
      return { path: recorded!.path, body: JSON.stringify(recorded!.body) };
    });
  } finally {
    await recorder.close();
  }
}

interface Round {
  chat: Latency;
  refine: Latency;
  bare: Latency;
}

async function cpuPerCompletion(s: Settings): Promise<ScenarioResult> {
  const captured = await captureChatRequest();
  const capturedFile = join(RESULTS_DIR, 'captured-chat-provider-body.json');
  writeFileSync(capturedFile, captured.body);
  const fake = await startFakeProvider(0, SAME_ANSWER);
  try {
    const bareProxy = await startBareChatProxy(`${fake.url}${captured.path}`, capturedFile);
    try {
      return await withService('chat', fake.url, async (service, personaId) => {
        const targets: Record<keyof Round, Target> = {
          chat: { url: `${service.url}/v1/chat/completions`, method: 'POST', headers: chatHeaders(personaId), body: chatBody(CONTENT), pid: service.pid },
          // Like with like: no Idempotency-Key on either (what a key costs a refine is the idempotency scenario's figure).
          refine: { url: `${service.url}/v1/refine`, method: 'POST', headers: JSON_AUTH, body: refineBody(personaId), pid: service.pid },
          bare: { url: `${bareProxy.url}/v1/chat/completions`, method: 'POST', headers: { 'content-type': 'application/json', 'x-provider-api-key': PROVIDER_KEY }, body: chatBody(CONTENT), pid: bareProxy.pid },
        };
        const order: (keyof Round)[] = ['chat', 'refine', 'bare'];
        if (s.warmupSeconds > 0) {
          for (const name of order) await openLoop(targets[name], CHAT_RATE, s.warmupSeconds, SOCKETS);
        }
        const rounds: Round[] = [];
        for (let i = 0; i < s.runs; i++) {
          const round: Partial<Round> = {};
          for (const name of [...order.slice(i % 3), ...order.slice(0, i % 3)]) round[name] = await openLoop(targets[name], CHAT_RATE, s.seconds, SOCKETS);
          ensureAlive(fake, bareProxy, service);
          rounds.push(round as Round);
        }
        const at = `at ${perSecond(CHAT_RATE)}`;
        const of = s.runs > 1 ? `, median of ${s.runs}` : '';
        const overBare = (r: Round) => r.chat.cpuUs / r.bare.cpuUs;
        const overRefine = (r: Round) => r.chat.cpuUs / r.refine.cpuUs;
        const typical = medianRound(rounds, overBare);
        const againstRefine = medianRound(rounds, overRefine);
        const rows: Row[] = [
          info(SCENARIO, `POST /v1/chat/completions ${at} (openai package path: X-Persona, X-Provider-Api-Key; persona with rules, one provider call)`, latency(typical.chat)),
          info(SCENARIO, `POST /v1/refine of the same text ${at} (no Idempotency-Key)`, latency(typical.refine)),
          info(SCENARIO, `bare Fastify + undici chat proxy ${at}`, latency(typical.bare)),
          judged(SCENARIO, `CPU per completion ${at}: chat ÷ bare chat proxy${of}`, overBare(typical), `${overBare(typical).toFixed(2)}× (${cpu(typical.chat.cpuUs)} vs ${cpu(typical.bare.cpuUs)})`, { atMost: 1.5, text: '≤ 1.5×' }),
          judged(SCENARIO, `CPU per completion ${at}: chat ÷ refine of the same answer${of}`, overRefine(againstRefine), `${overRefine(againstRefine).toFixed(2)}× (${cpu(againstRefine.chat.cpuUs)} vs ${cpu(againstRefine.refine.cpuUs)})`, { atMost: 1.1, text: '≤ 1.1×' }),
        ];
        const notes = [
          `Chat completions, CPU: the completion's prompt is the ${CONTENT.length}-character text the refine rewrites, and the fake answers both with that text, so the rules run on the same answer; the bare chat proxy sends the provider request the service made for the completion (${captured.body.length} bytes, captured from a recording fake) with the caller's messages as input.`,
        ];
        const behind = rounds.filter((r) => !keptUp(r.chat, CHAT_RATE) || !keptUp(r.refine, CHAT_RATE)).length;
        if (behind > 0) notes.push(`Chat completions: in ${behind} of ${s.runs} rounds the service did NOT keep up with ${perSecond(CHAT_RATE)} (< 95% answered, > 0.1% failed or > 90% of a core): its figures there measure a queue.`);
        return { rows, notes };
      });
    } finally {
      await bareProxy.stop();
    }
  } finally {
    await fake.stop();
  }
}

/** The texts both ways produce: a customer's question each, some naming what the persona's vocabulary renames. */
const PROMPTS = [
  'My order has not arrived after ten days. Where is it?',
  'Can I change the delivery address of order 40213?',
  'Do you ship to Canada, and how long does it take?',
  'The drill I bought stopped working after a week. What can I do?',
  'Is the distribution center in Leeds open on Saturdays for pick-ups?',
  'How do I return a ladder that is too short?',
  'Why was my card charged twice for one order?',
  'Do you have a discount for schools buying twenty tool kits?',
  'Can I add a gift note to an order I already placed?',
  'What is the warranty on your garden hoses?',
];

interface Spent {
  calls: number;
  tokens: number;
  /** Request bytes the provider received: what a text costs beyond what the fake counts as tokens. */
  bytes: number;
}

const add = (a: Spent, b: Spent): Spent => ({ calls: a.calls + b.calls, tokens: a.tokens + b.tokens, bytes: a.bytes + b.bytes });
const NOTHING: Spent = { calls: 0, tokens: 0, bytes: 0 };

/** Tokens in `X-Usage: input_tokens=…, output_tokens=…, provider_calls=…`, and the calls it counts. */
function usageHeader(header: string | null): { tokens: number; calls: number } {
  const field = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(header ?? '')?.[1] ?? Number.NaN);
  return { tokens: field('input_tokens') + field('output_tokens'), calls: field('provider_calls') };
}

/**
 * Runs `call` and charges it the provider requests the recording fake received meanwhile; the
 * tokens are those `call` read from the answers. Where the service reports its calls, they must
 * match what the fake saw, or the figures would not count what they say.
 */
async function spent(fake: FakeProviderServer, call: () => Promise<{ tokens: number; reportedCalls?: number }>): Promise<Spent> {
  const before = fake.requests.length;
  const { tokens, reportedCalls } = await call();
  const requests = fake.requests.slice(before);
  if (reportedCalls !== undefined && reportedCalls !== requests.length) throw new Error(`X-Usage says ${reportedCalls} provider calls, the fake received ${requests.length}`);
  return { calls: requests.length, tokens, bytes: requests.reduce((sum, request) => sum + Buffer.byteLength(JSON.stringify(request.body)), 0) };
}

async function completion(serviceUrl: string, personaId: string, prompt: string): Promise<{ tokens: number; reportedCalls: number }> {
  const response = await fetch(`${serviceUrl}/v1/chat/completions`, { method: 'POST', headers: chatHeaders(personaId), body: chatBody(prompt) });
  const body = (await response.json()) as { usage?: { total_tokens: number } };
  if (response.status !== 200 || !body.usage) throw new Error(`completion failed: ${response.status} ${JSON.stringify(body)}`);
  const header = usageHeader(response.headers.get('x-usage'));
  if (header.tokens !== body.usage.total_tokens) throw new Error(`a completion's usage (${body.usage.total_tokens} tokens) is not its X-Usage (${header.tokens})`);
  return { tokens: body.usage.total_tokens, reportedCalls: header.calls };
}

/** What an app does today: its own generation, straight to the provider, then a refine of the answer. */
async function generateThenRefine(fake: FakeProviderServer, serviceUrl: string, personaId: string, prompt: string): Promise<Spent> {
  let answer = '';
  const generated = await spent(fake, async () => {
    const response = await fetch(`${fake.baseUrl('openai')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${PROVIDER_KEY}` },
      body: JSON.stringify({ model: OPENAI_MODEL, messages: messages(prompt) }),
    });
    const body = (await response.json()) as { choices: { message: { content: string } }[]; usage: { total_tokens: number } };
    if (response.status !== 200) throw new Error(`generation failed: ${response.status} ${JSON.stringify(body)}`);
    answer = body.choices[0]!.message.content;
    return { tokens: body.usage.total_tokens };
  });
  const refined = await spent(fake, async () => {
    const response = await fetch(`${serviceUrl}/v1/refine`, {
      method: 'POST',
      headers: JSON_AUTH,
      body: JSON.stringify({ provider: 'openai', providerApiKey: PROVIDER_KEY, personaId, content: answer }),
    });
    if (response.status !== 200) throw new Error(`refine failed: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    const usage = usageHeader(response.headers.get('x-usage'));
    return { tokens: usage.tokens, reportedCalls: usage.calls };
  });
  return add(generated, refined);
}

const perText = (value: number, texts: number) => (value / texts).toFixed(value % texts === 0 ? 0 : 1);

async function callsPerText(s: Settings): Promise<ScenarioResult> {
  const prompts = s.quick ? PROMPTS.slice(0, 3) : PROMPTS;
  const fake = await startFakeProviderServer({ record: true, behaviour: ANSWER_WHAT_IS_ASKED });
  try {
    return await withService('chat-calls', fake.url, async (service, keptId) => {
      const [repairId] = await seedPersonas(service.url, 1, REPAIR_PERSONA);
      const rows: Row[] = [];
      const cases = [
        { personaId: keptId, what: 'persona whose rules the answer keeps', chatCalls: 1 },
        { personaId: repairId!, what: 'persona with a required rule the answer breaks (maxWords: the repair call)', chatCalls: 2 },
      ];
      for (const { personaId, what, chatCalls } of cases) {
        let chat = NOTHING;
        let today = NOTHING;
        for (const prompt of prompts) {
          chat = add(chat, await spent(fake, () => completion(service.url, personaId, prompt)));
          today = add(today, await generateThenRefine(fake, service.url, personaId, prompt));
        }
        const n = prompts.length;
        const of = `${n} texts, ${what}`;
        rows.push(
          judged(SCENARIO, `provider calls per text, one completion each (${of})`, chat.calls / n, perText(chat.calls, n), { atLeast: chatCalls, atMost: chatCalls, text: `= ${chatCalls}` }),
          info(SCENARIO, `provider calls per text, generation + POST /v1/refine (${of})`, `${perText(today.calls, n)} (${(today.calls / chat.calls).toFixed(2)}× the completion's)`),
          info(SCENARIO, `tokens per text, completion vs generation + refine (${of})`, `${perText(chat.tokens, n)} vs ${perText(today.tokens, n)} (${(today.tokens / chat.tokens).toFixed(2)}×)`),
          info(SCENARIO, `request bytes the provider received per text, completion vs generation + refine (${of})`, `${perText(chat.bytes, n)} vs ${perText(today.bytes, n)} (${(today.bytes / chat.bytes).toFixed(2)}×)`),
        );
      }
      return {
        rows,
        notes: [
          `Chat completions, calls and tokens: the fake answers a refine with the text it was given and a question with an answer its size; the tokens are those the answers report (a completion's usage, which equals its X-Usage; the generation's usage plus the refine's X-Usage), which the fake counts as about 4 characters a token of the last user message and of the reply, so the persona's instructions (sent as \`instructions\` both ways) are not in them; the request bytes are.`,
        ],
      };
    });
  } finally {
    await fake.close();
  }
}

export async function chat(s: Settings): Promise<ScenarioResult> {
  const cost = await cpuPerCompletion(s);
  const calls = await callsPerText(s);
  return { rows: [...cost.rows, ...calls.rows], notes: [...cost.notes, ...calls.notes] };
}
