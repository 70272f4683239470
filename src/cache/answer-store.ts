/**
 * Where cached answers live: in this process (an LRU bounded in bytes) or,
 * with REDIS_URL, in Redis so every instance shares them. Keys are opaque
 * digests (answer-cache.ts); values never hold a provider key.
 */
import type { Redis } from 'ioredis';
import type { FinishReason, ToolCall } from '../providers/index.js';

export interface CachedAnswer {
  response: string;
  /** A completion's tool calls and why its model stopped, given back as the answer gave them. */
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  /** Whether the persona's rules applied to the text, so a hit treats it as the original answer was. */
  rules: 'applied' | 'skipped';
  /** Who produced it, for X-Provider on a hit. */
  provider: string;
  model: string;
  /** Epoch ms when it was stored, for Age. */
  storedAt: number;
}

export interface AnswerStore {
  get(key: string): Promise<CachedAnswer | undefined>;
  set(key: string, answer: CachedAnswer, ttlSeconds: number): Promise<void>;
}

/** Strings are UTF-16 in memory; the constant covers the entry's object and map slot. */
const ENTRY_OVERHEAD_BYTES = 160;
const TOOL_CALL_OVERHEAD_BYTES = 80;
const textLength = (answer: CachedAnswer) =>
  answer.response.length + answer.provider.length + answer.model.length + answer.finishReason.length + answer.rules.length +
  answer.toolCalls.reduce((sum, call) => sum + call.id.length + call.name.length + call.arguments.length, 0);
const sizeOf = (key: string, answer: CachedAnswer) =>
  ENTRY_OVERHEAD_BYTES + TOOL_CALL_OVERHEAD_BYTES * answer.toolCalls.length + 2 * (key.length + textLength(answer));

interface MemoryEntry {
  answer: CachedAnswer;
  expiresAt: number;
  bytes: number;
}

/** Least recently used first out, once the entries' bytes exceed `maxBytes`. */
export class MemoryAnswerStore implements AnswerStore {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  private readonly entries = new Map<string, MemoryEntry>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  async get(key: string): Promise<CachedAnswer | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= Date.now()) {
      this.bytes -= entry.bytes;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry.answer;
  }

  async set(key: string, answer: CachedAnswer, ttlSeconds: number): Promise<void> {
    const bytes = sizeOf(key, answer);
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { answer, expiresAt: Date.now() + ttlSeconds * 1000, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
  }
}

const REDIS_PREFIX = 'persona-refine:answer:';

/**
 * A stored value as a CachedAnswer, or undefined (a miss) when it does not have the shape this
 * build writes: Redis outlives deploys, and a hit must never give back half an answer.
 */
function parseStored(value: string): CachedAnswer | undefined {
  const stored = JSON.parse(value) as Partial<CachedAnswer>;
  const complete = typeof stored.response === 'string' && Array.isArray(stored.toolCalls) && typeof stored.finishReason === 'string' &&
    (stored.rules === 'applied' || stored.rules === 'skipped') && typeof stored.provider === 'string' && typeof stored.model === 'string' &&
    typeof stored.storedAt === 'number';
  return complete ? (stored as CachedAnswer) : undefined;
}

/**
 * Shared by every instance. A Redis failure is a miss (reads) or a skipped
 * write, reported once per outage: the cache must never fail a refine.
 */
export class RedisAnswerStore implements AnswerStore {
  private failing = false;

  constructor(
    private readonly redis: Redis,
    private readonly warn: (message: string) => void,
  ) {}

  async get(key: string): Promise<CachedAnswer | undefined> {
    try {
      const value = await this.redis.get(REDIS_PREFIX + key);
      this.failing = false;
      return value === null ? undefined : parseStored(value);
    } catch (error) {
      this.report(error);
      return undefined;
    }
  }

  async set(key: string, answer: CachedAnswer, ttlSeconds: number): Promise<void> {
    try {
      await this.redis.set(REDIS_PREFIX + key, JSON.stringify(answer), 'EX', ttlSeconds);
      this.failing = false;
    } catch (error) {
      this.report(error);
    }
  }

  private report(error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.warn(`answer cache unavailable (Redis: ${error instanceof Error ? error.message : String(error)}); refines go to the provider until it is back`);
  }
}
