/**
 * The server never falls back to a provider key or base URL from its own environment
 * (docs/security.md, "Secrets"): the SDKs would read OPENAI_API_KEY, OPENAI_BASE_URL & co. if we let them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../src/providers/index.js';
import { type FakeProviderServer, startFakeProviderServer } from '../fakes/provider-server.js';
import { apiOf, successBody } from '../fakes/provider-wire-formats.js';
import { allIds, call, keyFor, registryFor, within } from './provider-test-kit.js';

const decoys: Record<string, string> = {
  OPENAI_API_KEY: 'sk-decoy-openai-0000000000',
  ANTHROPIC_API_KEY: 'sk-ant-decoy-0000000000',
  GOOGLE_GENERATIVE_AI_API_KEY: 'gk-FAKE-decoy-0000',
  MISTRAL_API_KEY: 'decoy-mistral-0000000000',
  GROQ_API_KEY: 'gsk_decoy0000000000',
  DEEPSEEK_API_KEY: 'sk-decoy-deepseek-0000000000',
  XAI_API_KEY: 'xai-decoy0000000000',
  OPENAI_BASE_URL: 'http://127.0.0.1:9/decoy/v1',
  ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/decoy/v1',
};

let fake: FakeProviderServer;
const saved: Record<string, string | undefined> = {};
beforeAll(async () => {
  for (const [name, value] of Object.entries(decoys)) {
    saved[name] = process.env[name];
    process.env[name] = value;
  }
  fake = await startFakeProviderServer();
});
afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await fake.close();
});

const presentedKey = (headers: Record<string, unknown>) =>
  headers['x-api-key'] ?? headers['x-goog-api-key'] ?? String(headers.authorization).replace(/^Bearer /, '');

describe('with provider keys and base URLs in the environment', () => {
  it.each(allIds)('%s receives the caller key, not the one in the environment', async (id) => {
    fake.reset();
    await registryFor(fake).generate(id, call(id), within(5_000));
    const request = fake.requests[0];
    expect(presentedKey(request?.headers ?? {})).toBe(keyFor(id));
    expect(JSON.stringify(request?.headers)).not.toMatch(/decoy/i);
  });

  it('without an override, each provider is called at its public URL, not the environment one', async () => {
    const urls: string[] = [];
    const stubFetch: typeof fetch = async (input) => {
      const url = new URL(String(input));
      urls.push(url.href);
      const api = apiOf(url.pathname)?.api ?? 'openai-chat';
      return Response.json(successBody(api, 'm', 'u', 'rewritten'));
    };
    const registry = createProviderRegistry({ baseUrls: {}, models: {} }, { fetch: stubFetch });
    for (const id of registry.ids()) await registry.generate(id, call(id), within(5_000));
    expect(urls).toEqual([
      'https://api.openai.com/v1/responses',
      'https://api.anthropic.com/v1/messages',
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-flash-latest:generateContent',
      'https://api.mistral.ai/v1/chat/completions',
      'https://api.groq.com/openai/v1/chat/completions',
      'https://api.deepseek.com/chat/completions',
      'https://api.x.ai/v1/chat/completions',
    ]);
  });
});
