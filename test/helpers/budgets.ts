/** What the budget suites share: the tokens an X-Usage header states, and a start away from the rate limit's minute edge. */

export const tokensOf = (usage: string | null): number =>
  [...(usage ?? '').matchAll(/(input|output)_tokens=(\d+)/g)].reduce((sum, [, , n]) => sum + Number(n), 0);

export async function awayFromMinuteEdge(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  // sleeps because the rate limit's window is the wall clock's minute (the limiter reads no Clock): a burst must not straddle two
  if (intoWindow > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoWindow + 50));
}
