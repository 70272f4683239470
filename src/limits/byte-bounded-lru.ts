/**
 * A synchronous least-recently-used map bounded by the estimated bytes of its values,
 * not their count: one tenant's few huge entries must evict, not multiply. Entries
 * larger than the whole budget are not kept at all (the caller still gets its value).
 */
export class ByteBoundedLru<V> {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.used;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, bytes: number): void {
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.used -= previous.bytes;
    }
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { value, bytes });
    this.used += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.used <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.used -= entry.bytes;
    }
  }

  /** The cached value, else `build()`'s, kept at the size `bytesOf` estimates. */
  getOrBuild(key: string, build: () => V, bytesOf: (value: V) => number): V {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const value = build();
    this.set(key, value, bytesOf(value));
    return value;
  }
}
