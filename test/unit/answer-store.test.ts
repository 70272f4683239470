import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { type CachedAnswer, MemoryAnswerStore, RedisAnswerStore } from '../../src/cache/answer-store.js';
import { REDIS_TEST_URL, redisAvailable } from '../helpers/services.js';

const answer = (response: string, toolCalls: CachedAnswer['toolCalls'] = []): CachedAnswer => ({
  response, toolCalls, finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop', rules: toolCalls.length > 0 ? 'skipped' : 'applied',
  provider: 'openai', model: 'gpt-x', storedAt: Date.now(),
});

describe('the in-process answer store', () => {
  it('stays within its byte budget, evicting the least recently used first', async () => {
    const store = new MemoryAnswerStore(2_000);
    await store.set('a', answer('x'.repeat(300)), 60);
    await store.set('b', answer('y'.repeat(300)), 60);
    expect(await store.get('a')).toBeDefined(); // a is now the most recently used
    await store.set('c', answer('z'.repeat(300)), 60);
    expect(store.size.bytes).toBeLessThanOrEqual(2_000);
    expect(await store.get('b')).toBeUndefined();
    expect((await store.get('a'))?.response).toHaveLength(300);
    expect((await store.get('c'))?.response).toHaveLength(300);
  });

  it('never holds more bytes than allowed, however many entries arrive', async () => {
    const store = new MemoryAnswerStore(50_000);
    for (let i = 0; i < 1_000; i++) await store.set(`key-${i}`, answer('w'.repeat(i % 200)), 60);
    expect(store.size.bytes).toBeLessThanOrEqual(50_000);
    expect(store.size.entries).toBeGreaterThan(50);
    expect(await store.get('key-999')).toBeDefined();
  });

  it('does not store an entry larger than the whole budget, and replacing an entry frees its bytes', async () => {
    const store = new MemoryAnswerStore(1_000);
    await store.set('big', answer('b'.repeat(1_000)), 60);
    expect(await store.get('big')).toBeUndefined();
    await store.set('k', answer('1'.repeat(100)), 60);
    const once = store.size.bytes;
    await store.set('k', answer('2'.repeat(100)), 60);
    expect(store.size).toEqual({ entries: 1, bytes: once });
    expect((await store.get('k'))?.response).toBe('2'.repeat(100));
  });

  it('counts a completion\'s tool calls in its bytes and gives them back', async () => {
    const store = new MemoryAnswerStore(10_000);
    await store.set('text', answer(''), 60);
    const bare = store.size.bytes;
    const calls = [{ id: 'call_1', name: 'lookup_order', arguments: JSON.stringify({ order: 'x'.repeat(1_000) }) }];
    await store.set('calls', answer('', calls), 60);
    expect(store.size.bytes - bare).toBeGreaterThan(2 * 1_000);
    expect(await store.get('calls')).toMatchObject({ toolCalls: calls, finishReason: 'tool_calls', rules: 'skipped' });
    await store.set('huge', answer('', [{ id: 'c', name: 'n', arguments: 'a'.repeat(6_000) }]), 60);
    expect(await store.get('huge')).toBeUndefined();
  });

  it('forgets an entry past its time to live', async () => {
    const store = new MemoryAnswerStore(10_000);
    await store.set('short', answer('s'), 0.05);
    // sleeps because the store's time to live is the wall clock's (it reads no Clock), and 80 ms is its whole cost
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await store.get('short')).toBeUndefined();
    expect(store.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('a budget of 0 turns the in-process cache off', async () => {
    const store = new MemoryAnswerStore(0);
    await store.set('k', answer('v'), 60);
    expect(await store.get('k')).toBeUndefined();
  });
});

describe.skipIf(!redisAvailable)('the Redis answer store', () => {
  it('gives back a completion\'s tool calls, finish reason and rules, and takes an entry of another shape for a miss', async () => {
    const redis = new Redis(REDIS_TEST_URL);
    try {
      const store = new RedisAnswerStore(redis, () => {});
      const key = `unit-${process.pid}-${Date.now()}`;
      const calls = [{ id: 'call_1', name: 'lookup_order', arguments: '{"order":"A-1"}' }];
      await store.set(key, answer('', calls), 60);
      expect(await store.get(key)).toEqual({ ...answer('', calls), storedAt: expect.any(Number) });
      // What an older build wrote: text alone.
      await redis.set(`persona-refine:answer:${key}-old`, JSON.stringify({ response: 'hi', provider: 'openai', model: 'gpt-x', storedAt: Date.now() }), 'EX', 60);
      expect(await store.get(`${key}-old`)).toBeUndefined();
      await redis.del(`persona-refine:answer:${key}`, `persona-refine:answer:${key}-old`);
    } finally {
      redis.disconnect();
    }
  });
});
