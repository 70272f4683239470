/**
 * A fresh Idempotency-Key. Node 18 has no global `crypto` without a flag, so there the key falls
 * back to Math.random: it must be unique, not secret, and 122 random bits stay unique enough.
 */
export function newIdempotencyKey(): string {
  const webCrypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (typeof webCrypto?.randomUUID === 'function') return webCrypto.randomUUID();
  return 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'.replace(/[xy]/g, (c) => {
    const nibble = Math.floor(Math.random() * 16);
    return (c === 'x' ? nibble : (nibble & 0x3) | 0x8).toString(16);
  });
}
