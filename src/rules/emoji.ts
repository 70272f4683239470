/**
 * Emoji stripping for personas with `emoji: "none"`.
 *
 * A whole emoji sequence is removed at once: skin-tone modifiers, ZWJ sequences
 * (👨‍👩‍👧), flags (pairs of regional indicators), subdivision flags (tag sequences),
 * keycaps (1️⃣) and variation selectors, so no invisible leftovers remain.
 *
 * Text-style symbols that Unicode also lists as pictographic (©, ®, ™, ↔, ✔, ☀) are
 * typography, not emoji, and are kept, unless written with the emoji variation
 * selector (U+FE0F) or as part of an emoji sequence.
 */
import type { PersonaRules, RuleViolation } from './types.js';
import { applyEdits, quote, type Edit, type OverlapTest, type Span } from './spans.js';

/**
 * A base followed by every variation selector, skin tone, keycap mark and tag that
 * comes after it: absorbing all of them, rather than the one the grammar allows, means
 * a removal never leaves an invisible part next to a kept symbol (™ + U+FE0F would
 * turn the ™ into an emoji on the next run).
 */
const ELEMENT =
  String.raw`(?:\p{Regional_Indicator}{2}|[#*0-9]\uFE0F?\u20E3|[\p{Extended_Pictographic}\p{Emoji_Presentation}])` +
  String.raw`(?:[\uFE0E\uFE0F\u20E3\u{E0020}-\u{E007F}]|\p{Emoji_Modifier})*`;

/**
 * Elements joined by ZWJ (the core), then any dangling joiners and selectors, removed
 * with it so that none is left behind.
 */
const SEQUENCE = new RegExp(
  String.raw`(${ELEMENT}(?:\u200D${ELEMENT})*)[\u200D\uFE0E\uFE0F\u20E3\u{E0020}-\u{E007F}]*`,
  'gu',
);

/** What makes a pictographic sequence an emoji rather than a text symbol. */
const EMOJI_STYLE =
  /[\uFE0F\u200D\u20E3\u{E007F}]|\p{Emoji_Modifier}|\p{Regional_Indicator}|\p{Emoji_Presentation}|[\u{1F000}-\u{1FFFF}]/u;

const BLANK = /[^\S\r\n]/u;
/** Punctuation or markup that closes something: the blank before a removed emoji goes with it. */
const CLOSER = /[.,!?;:*_~"'\])}]|\p{Pe}|\p{Pf}/u;
/** Punctuation or markup that opens something: the blank after a removed emoji goes with it. */
const OPENER = /[*_~"'([{]|\p{Ps}|\p{Pi}/u;

export function findEmoji(text: string, isProtected: OverlapTest): Span[] {
  const found: Span[] = [];
  for (const match of text.matchAll(SEQUENCE)) {
    const span = { start: match.index, end: match.index + match[0].length };
    // A text symbol followed by a stray joiner ("™" + U+200D) is still a text symbol.
    const core = match[1] ?? '';
    if (EMOJI_STYLE.test(core) && !isProtected(span.start, span.end)) found.push(span);
  }
  return found;
}

export function emojiViolations(
  rules: PersonaRules,
  text: string,
  isProtected: OverlapTest,
): RuleViolation[] {
  if (!rules.stripEmoji) return [];
  return findEmoji(text, isProtected).map((span) => ({
    rule: 'emoji',
    message: `contains emoji ${quote(text.slice(span.start, span.end))}; this persona uses none`,
    start: span.start,
    end: span.end,
  }));
}

export function fixEmoji(
  rules: PersonaRules,
  text: string,
  isProtected: OverlapTest,
): { text: string; count: number } {
  if (!rules.stripEmoji) return { text, count: 0 };
  const found = findEmoji(text, isProtected);
  if (found.length === 0) return { text, count: 0 };

  // Emoji separated only by blanks ("🎉 🎊 🚀") are removed as one run.
  const runs: { start: number; end: number }[] = [];
  for (const span of found) {
    const last = runs.at(-1);
    if (last && /^[^\S\r\n]*$/u.test(text.slice(last.end, span.start))) last.end = span.end;
    else runs.push({ start: span.start, end: span.end });
  }
  const edits = runs.map((run) => {
    const tidy = removalWithBlanks(text, run);
    return isProtected(tidy.start, tidy.end) ? { ...run, replacement: '' } : tidy;
  });
  return { text: applyEdits(text, edits), count: found.length };
}

/**
 * Widens a removal so that it leaves no double space, no blank before punctuation
 * no trailing blank at the end of a line and no line left empty:
 * "Great work 🎉 team" → "Great work team", "Thanks 🎉!" → "Thanks!", "🚀 Launch" → "Launch",
 * "Done.\n🚀\nNext" → "Done.\nNext".
 */
function removalWithBlanks(text: string, run: Span): Edit {
  let blanksBefore = run.start;
  while (blanksBefore > 0 && BLANK.test(text[blanksBefore - 1]!)) blanksBefore--;
  let blanksAfter = run.end;
  while (blanksAfter < text.length && BLANK.test(text[blanksAfter]!)) blanksAfter++;

  const next = text[blanksAfter];
  const previous = text[run.start - 1];
  const endsLine = next === undefined || next === '\n' || next === '\r';
  const startsLine = previous === undefined || previous === '\n';

  // A line that held only emoji goes with its line break: left empty, it would start a paragraph the model never wrote.
  const aloneOnLine = (blanksBefore === 0 || text[blanksBefore - 1] === '\n') && endsLine && next !== undefined;
  if (aloneOnLine) return { start: blanksBefore, end: blanksAfter + (text.startsWith('\r\n', blanksAfter) ? 2 : 1), replacement: '' };
  if (endsLine) return { start: blanksBefore, end: blanksAfter, replacement: '' };
  if (blanksAfter === run.end && blanksBefore < run.start && CLOSER.test(next)) {
    return { start: blanksBefore, end: run.end, replacement: '' };
  }
  if (blanksBefore < run.start || startsLine || OPENER.test(previous)) {
    return { start: run.start, end: blanksAfter, replacement: '' };
  }
  return { start: run.start, end: run.end, replacement: '' };
}
