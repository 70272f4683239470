import { isRecord, tokenUsage, USER_AGENT, type StreamEvent, type WireFormat } from './wire-format.js';

/**
 * Gemini's `responseSchema` is an OpenAPI subset: upper-case type names, and no
 * `additionalProperties` (an unknown field is a 400); `propertyOrdering` keeps the JSON's
 * members in the schema's order.
 */
function geminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(geminiSchema);
  if (!isRecord(schema)) return schema;
  const converted: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties') continue;
    if (key === 'type' && typeof value === 'string') converted.type = value.toUpperCase();
    else if (key === 'properties' && isRecord(value)) {
      converted.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, geminiSchema(property)]));
      converted.propertyOrdering = Object.keys(value);
    } else converted[key] = geminiSchema(value);
  }
  return converted;
}

/**
 * Gemini API: `POST /models/{model}:generateContent`, `x-goog-api-key`, system as `systemInstruction`.
 * Structured output is `generationConfig.responseSchema` with `responseMimeType: application/json`.
 */
export const googleGenerateContent: WireFormat = {
  request: (apiKey, model, system, user, stream = false, output) => ({
    path: `/models/${encodeURIComponent(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: { 'x-goog-api-key': apiKey, 'content-type': 'application/json', 'user-agent': USER_AGENT },
    body: JSON.stringify({
      systemInstruction: { parts: [{ text: system }] },
      contents: [{ role: 'user', parts: [{ text: user }] }],
      ...(output ? { generationConfig: { responseMimeType: 'application/json', responseSchema: geminiSchema(output.schema) } } : {}),
    }),
  }),
  text: candidateText,
  // The JSON comes back as the candidate's text.
  structuredText: candidateText,
  usage: usageOf,
  // Each event is a GenerateContentResponse holding the next text; the last one has a finishReason.
  streamEvent(data): StreamEvent | undefined {
    if (!isRecord(data)) return undefined;
    if (isRecord(data.error)) {
      const status = typeof data.error.code === 'number' ? data.error.code : 500;
      return { error: { status, body: JSON.stringify(data) } };
    }
    const event: StreamEvent = {};
    const text = candidateText(data);
    if (text) event.text = text;
    const usage = usageOf(data);
    if (usage) event.usage = usage;
    const [candidate] = Array.isArray(data.candidates) ? data.candidates : [];
    // A blocked prompt ends the stream with promptFeedback and no candidates.
    if ((isRecord(candidate) && typeof candidate.finishReason === 'string') || (data.candidates === undefined && isRecord(data.promptFeedback))) {
      event.end = true;
    }
    return event;
  },
};

function candidateText(answer: unknown): string | undefined {
  if (!isRecord(answer)) return undefined;
  // A blocked prompt comes back with promptFeedback and no candidates: no text, not a broken answer.
  if (answer.candidates === undefined && isRecord(answer.promptFeedback)) return '';
  if (!Array.isArray(answer.candidates)) return undefined;
  const [candidate] = answer.candidates;
  if (!isRecord(candidate)) return undefined;
  if (!isRecord(candidate.content)) return '';
  const { parts } = candidate.content;
  if (!Array.isArray(parts)) return '';
  let text = '';
  for (const part of parts) if (isRecord(part) && typeof part.text === 'string' && part.thought !== true) text += part.text;
  return text;
}

function usageOf(answer: unknown) {
  if (!isRecord(answer) || !isRecord(answer.usageMetadata)) return undefined;
  const { promptTokenCount, candidatesTokenCount, thoughtsTokenCount } = answer.usageMetadata;
  // Thinking tokens are billed as output but not counted in candidatesTokenCount.
  const thoughts = typeof thoughtsTokenCount === 'number' ? thoughtsTokenCount : 0;
  return tokenUsage(promptTokenCount, typeof candidatesTokenCount === 'number' ? candidatesTokenCount + thoughts : candidatesTokenCount);
}
