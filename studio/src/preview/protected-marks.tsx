/** The sample's protected items in the preview: marked in the original, the lost ones flagged and listed. */
import type { ComponentChildren } from 'preact';
import type { ProtectedItem } from './protected-items.js';
import type { DiffPart } from './word-diff.js';

/** The original side of the diff, its protected items marked: kept ones underlined, lost ones flagged. */
export function MarkedOriginal({ parts, items }: { parts: DiffPart[]; items: ProtectedItem[] }) {
  const nodes: ComponentChildren[] = [];
  let offset = 0;
  parts.forEach((part, index) => {
    if (part.kind === 'added') return;
    const segments = withMarks(part.text, offset, items, index);
    offset += part.text.length;
    nodes.push(part.kind === 'removed' ? <del key={index}>{segments}</del> : segments);
  });
  return <div class="diff-text">{nodes}</div>;
}

/** `text` starts at `offset` of the sample; an item across two diff parts gets a mark in each. */
function withMarks(text: string, offset: number, items: ProtectedItem[], part: number): ComponentChildren[] {
  const end = offset + text.length;
  const out: ComponentChildren[] = [];
  let cursor = offset;
  for (const item of items) {
    if (item.end <= cursor || item.start >= end) continue;
    const from = Math.max(item.start, cursor);
    const to = Math.min(item.end, end);
    if (from > cursor) out.push(text.slice(cursor - offset, from - offset));
    out.push(
      <mark key={`${part}:${from}`} class={item.lost ? 'lost' : 'kept'} title={item.lost ? 'Protected, and missing from the answer' : 'Protected, kept in the answer'}>
        {text.slice(from - offset, to - offset)}
      </mark>,
    );
    cursor = to;
  }
  if (cursor < end) out.push(text.slice(cursor - offset));
  return out;
}

export function ProtectedSummary({ sample, items }: { sample: string; items: ProtectedItem[] }) {
  if (items.length === 0) return null;
  const lost = items.filter((item) => item.lost);
  const count = items.length === 1 ? '1 protected item' : `${items.length} protected items`;
  return (
    <div class="protected-summary">
      <p>
        <mark class="kept">Marked</mark> in the original: {count} (numbers, links, e-mail addresses, code, template placeholders) that every refine must
        keep. {lost.length === 0 ? 'The answer kept every one.' : `The answer lost ${lost.length}:`}
      </p>
      {lost.length > 0 && (
        <ul class="lost-items" aria-label="Lost by the answer">
          {lost.map((item) => (
            <li key={item.start}>
              <code>{sample.slice(item.start, item.end)}</code>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
