/** Reading a text/event-stream answer in tests: every event, and every `:` comment, in order. */
export interface ReceivedEvent {
  event: string;
  data: Record<string, unknown>;
}

export function parseEventStream(text: string): ReceivedEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '' && !block.startsWith(':'))
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? 'message';
      const data = lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n');
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

export const deltasOf = (events: ReceivedEvent[]) => events.filter((e) => e.event === 'delta').map((e) => e.data.text as string);

/** Reads a streamed answer until `stop` says so, then gives back what came. */
export async function readUntil(response: Response, stop: (text: string) => boolean): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!stop(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  return text;
}
