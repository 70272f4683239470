import { describe, expect, it } from 'vitest';
import { EventStream, formatEvent } from '../../src/http/event-stream.js';

describe('event stream body', () => {
  it('writes each event as one data line of JSON, with a keep-alive comment while idle, and stops on end', async () => {
    const events = new EventStream(20);
    let text = '';
    events.body.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    events.send('delta', { text: 'line one\nline two "quoted"' });
    // Two keep-alives while idle; waited for rather than timed, as timers fire late on a loaded machine.
    await expect.poll(() => text.split(': keep-alive\n\n').length - 1, { interval: 20 }).toBeGreaterThanOrEqual(2);
    events.send('done', { response: 'x' });
    events.end();
    await new Promise((resolve) => events.body.once('end', resolve));
    expect(text.startsWith(`: stream open\n\n${formatEvent('delta', { text: 'line one\nline two "quoted"' })}`)).toBe(true);
    expect(text).toContain('event: delta\ndata: {"text":"line one\\nline two \\"quoted\\""}\n\n');
    expect(text.split(': keep-alive\n\n').length - 1).toBeGreaterThanOrEqual(2);
    expect(text.endsWith('event: done\ndata: {"response":"x"}\n\n')).toBe(true);
    const after = text.length;
    // sleeps because it shows nothing more is written after the end: an absence has nothing to poll
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(text.length).toBe(after);
  });

  it('respects backpressure: while nobody reads, a send over the buffer mark stays pending; reading lets it resolve', async () => {
    const events = new EventStream(60_000);
    const big = { text: 'x'.repeat(64 * 1024) };
    let resolved = false;
    const sending = events.send('delta', big).then(() => (resolved = true));
    // sleeps because it shows the send stays pending: an absence has nothing to poll
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Nothing reads the body: the route must not fetch the next piece from the provider.
    expect(resolved).toBe(false);
    expect(events.body.writableLength + events.body.readableLength).toBeLessThan(2 * (64 * 1024 + 100));
    events.body.resume();
    await sending;
    expect(resolved).toBe(true);
    events.end();
  });

  it('a send resolves when the client is gone, so a stream whose reader left does not hang', async () => {
    const events = new EventStream(60_000);
    const sending = events.send('delta', { text: 'y'.repeat(64 * 1024) });
    events.body.destroy();
    await sending;
    events.end();
  });
});
