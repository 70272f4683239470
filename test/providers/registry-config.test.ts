import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/errors.js';
import { createProviderRegistry, findProviderConfigProblem } from '../../src/providers/index.js';
import { call, rejection, within } from './provider-test-kit.js';

const none = { baseUrls: {}, models: {} };

describe('findProviderConfigProblem', () => {
  it('accepts no overrides, and overrides of built-in providers', () => {
    expect(findProviderConfigProblem(none)).toBeUndefined();
    expect(
      findProviderConfigProblem({ baseUrls: { openai: 'http://127.0.0.1:9000/v1' }, models: { google: 'gemini-2.5-pro' } }),
    ).toBeUndefined();
  });

  it('accepts an OpenAI-compatible provider declared with a base URL and a model', () => {
    expect(
      findProviderConfigProblem({ baseUrls: { ollama: 'http://127.0.0.1:11434/v1' }, models: { ollama: 'llama3.2' } }),
    ).toBeUndefined();
  });

  it('names PROVIDER_MODEL_<ID> when a declared provider has no model', () => {
    expect(findProviderConfigProblem({ baseUrls: { ollama: 'http://127.0.0.1:11434/v1' }, models: {} })).toEqual({
      variable: 'PROVIDER_MODEL_OLLAMA',
      problem:
        'must be set: PROVIDER_BASE_URL_OLLAMA declares the OpenAI-compatible provider "ollama", which has no default model',
    });
  });

  it('spells ids with dashes back as the variable config.ts read', () => {
    expect(findProviderConfigProblem({ baseUrls: { 'open-router': 'https://openrouter.ai/api/v1' }, models: {} })?.variable).toBe(
      'PROVIDER_MODEL_OPEN_ROUTER',
    );
  });

  it('refuses the reserved id "rules"', () => {
    expect(findProviderConfigProblem({ baseUrls: { rules: 'http://127.0.0.1:1/v1' }, models: { rules: 'x' } })).toEqual({
      variable: 'PROVIDER_BASE_URL_RULES',
      problem: 'is not allowed: "rules" is a reserved provider id',
    });
  });

  it('refuses a model for a provider nothing declares (a typo)', () => {
    expect(findProviderConfigProblem({ baseUrls: {}, models: { opnai: 'gpt-5.4-mini' } })).toEqual({
      variable: 'PROVIDER_MODEL_OPNAI',
      problem:
        'names no provider: built-in providers are openai, anthropic, google, mistral, groq, deepseek, xai; ' +
        'set PROVIDER_BASE_URL_OPNAI to declare an OpenAI-compatible provider "opnai"',
    });
  });
});

describe('createProviderRegistry', () => {
  it('lists the built-in providers, then the declared ones', () => {
    const registry = createProviderRegistry({ baseUrls: { vllm: 'http://127.0.0.1:8000/v1' }, models: { vllm: 'qwen' } });
    expect(registry.ids()).toEqual(['openai', 'anthropic', 'google', 'mistral', 'groq', 'deepseek', 'xai', 'vllm']);
    expect(registry.has('vllm')).toBe(true);
    expect(registry.has('rules')).toBe(false);
    expect(registry.has('constructor')).toBe(false);
    expect(registry.defaultModel('vllm')).toBe('qwen');
  });

  it('has a current default model for every built-in provider', () => {
    const registry = createProviderRegistry(none);
    expect(Object.fromEntries(registry.ids().map((id) => [id, registry.defaultModel(id)]))).toEqual({
      openai: 'gpt-5.4-mini',
      anthropic: 'claude-haiku-4-5',
      google: 'gemini-flash-latest',
      mistral: 'mistral-small-latest',
      groq: 'llama-3.3-70b-versatile',
      deepseek: 'deepseek-v4-flash',
      xai: 'grok-4-1-fast-non-reasoning',
    });
  });

  it('will not start with a problem in the overrides', () => {
    expect(() => createProviderRegistry({ baseUrls: { ollama: 'http://127.0.0.1:11434/v1' }, models: {} })).toThrow(
      'invalid configuration: PROVIDER_MODEL_OLLAMA must be set',
    );
  });

  it('answers an unknown provider with a 400 listing the supported ones', async () => {
    const error = await rejection(createProviderRegistry(none).generate('openia', call('openai'), within(1_000)));
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      code: 'invalid_request',
      message: 'provider must be one of openai, anthropic, google, mistral, groq, deepseek, xai',
    });
  });
});
