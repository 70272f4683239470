/**
 * Finds a term base's entries in a text, in time linear in the text whatever the number of
 * entries. One alternation of 2,000 phrases (word-match.ts's way, fine for its 200) took minutes
 * on a megabyte, so the text is cut into tokens once and each position walks a trie of the
 * entries' tokens: the work per position is bounded by the longest entry's token count.
 *
 * Tokens: a run of letters, digits and marks of a spaced script; one character of a script
 * written without spaces (Chinese, Japanese, Thai…), so a term there needs no word edge; or one
 * other character (punctuation, symbols), so "sign-in", "C++" and ".NET" match literally. Between
 * two tokens of an entry the text may have nothing (as the entry has), or, where the entry has a
 * blank, any blanks with at most one line break, as word-match.ts reads phrases. An identifier is
 * one word: "customer" does not match in "customer_id", but does in "_customer_" (emphasis).
 * Unlike word-match.ts, a change between a spaced and an unspaced script is a word edge, so
 * "Acme Cloud" is found in "Acme Cloudを使う". A persona with a `locale` has its words cut as
 * Intl.Segmenter cuts them for it (word-segments.ts), the entries' and the text's alike: "会社"
 * is then not found inside "株式会社", nor "Service" inside "Kundenservice".
 *
 * Inflections (an entry's `forms`): the last word also matches with -s, -es, -'s, -ed and -ing,
 * and the regular spellings -d and -ing after a final e and -ies and -ied after a consonant's y
 * ("creates", "created", "creating", "copies"). Irregular forms (doubled consonants, "mice")
 * are not matched.
 */
import { compiledPattern } from './compiled-patterns.js';
import type { OverlapTest, Span } from './spans.js';
import { UNSPACED } from './word-match.js';
import { segmenterFor, segmentsWith } from './word-segments.js';
import { inflectsByDefault, type TermEntry } from '../personas/catalogue/index.js';

export type Ending = 'plural' | 'possessive' | 'past' | 'progressive';

export interface TermMatch extends Span {
  readonly text: string;
  /** Index of the entry in the list given. */
  readonly entry: number;
  /** The entry's own term (not one of its `replaces`). */
  readonly isTerm: boolean;
  /** The inflection the matched word had, if any; `apostrophe` for a possessive. */
  readonly ending?: Ending;
  readonly apostrophe?: string;
}

const enum Kind {
  Word,
  Unspaced,
  Other,
}
/** What separates a token from the one before it: nothing, blanks (one line break at most), or more. */
const enum Gap {
  None,
  Blank,
  Break,
}

const TOKEN = new RegExp(String.raw`(${UNSPACED}\p{M}*)|((?:(?!${UNSPACED})[\p{L}\p{N}\p{M}])+)|[^\s\p{L}\p{N}\p{M}]\p{M}*`, 'gu');

const OTHER = /\S\p{M}*/gu;

interface Tokens {
  readonly starts: number[];
  readonly ends: number[];
  readonly kinds: Kind[];
  readonly gaps: Gap[];
}

function tokenize(text: string, segmenter: Intl.Segmenter | undefined): Tokens {
  const tokens: Tokens = { starts: [], ends: [], kinds: [], gaps: [] };
  let previousEnd = 0;
  const push = (start: number, end: number, kind: Kind) => {
    tokens.starts.push(start);
    tokens.ends.push(end);
    tokens.kinds.push(kind);
    tokens.gaps.push(start === previousEnd ? Gap.None : lineBreaks(text, previousEnd, start) > 1 ? Gap.Break : Gap.Blank);
    previousEnd = end;
  };
  if (segmenter !== undefined) {
    // The locale's words ("株式会社" one word, "Kundenservice" one word); each other visible character its own token.
    for (const { segment, index, isWordLike } of segmentsWith(segmenter, text)) {
      if (isWordLike) push(index, index + segment.length, Kind.Word);
      else for (const other of segment.matchAll(OTHER)) push(index + other.index, index + other.index + other[0].length, Kind.Other);
    }
    return tokens;
  }
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match !== null; match = TOKEN.exec(text)) {
    push(match.index, match.index + match[0].length, match[1] !== undefined ? Kind.Unspaced : match[2] !== undefined ? Kind.Word : Kind.Other);
  }
  return tokens;
}

function lineBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to && count < 2; i++) if (text.charCodeAt(i) === 10) count++;
  return count;
}

interface Terminal {
  entry: number;
  isTerm: boolean;
  inflected: boolean;
}

/** One trie per case mode: its tokens are compared as written or lower-cased. */
class Trie {
  private readonly edges = new Map<string, number>();
  /** Edges of an inflected entry's last word, looked up by the stem of the text's word. */
  private readonly stemEdges = new Map<string, number>();
  private readonly terminals = new Map<number, Terminal>();
  private nodes = 1;
  size = 0;

  constructor(
    readonly caseSensitive: boolean,
    private readonly segmenter: Intl.Segmenter | undefined,
  ) {}

  key(word: string): string {
    return this.caseSensitive ? word : word.toLowerCase();
  }

  add(phrase: string, terminal: Terminal): void {
    const tokens = tokenize(phrase, this.segmenter);
    const count = tokens.starts.length;
    if (count === 0) return;
    let node = 0;
    for (let i = 0; i < count; i++) {
      const token = this.key(phrase.slice(tokens.starts[i], tokens.ends[i]));
      const edge = edgeKey(node, i === 0 ? Gap.None : tokens.gaps[i]!, token);
      if (i === count - 1 && terminal.inflected && tokens.kinds[i] === Kind.Word && !this.stemEdges.has(edge)) {
        this.stemEdges.set(edge, this.terminalNode(terminal));
        this.size++;
      }
      let child = this.edges.get(edge);
      if (child === undefined) {
        child = this.nodes++;
        this.edges.set(edge, child);
        this.size++;
      }
      node = child;
    }
    // The first entry of a phrase wins, as in the term base's order.
    if (!this.terminals.has(node)) this.terminals.set(node, terminal);
  }

  private terminalNode(terminal: Terminal): number {
    const node = this.nodes++;
    this.terminals.set(node, terminal);
    return node;
  }

  child(node: number, gap: Gap, token: string): number | undefined {
    return this.edges.get(edgeKey(node, gap, token));
  }

  stemChild(node: number, gap: Gap, stem: string): number | undefined {
    return this.stemEdges.size === 0 ? undefined : this.stemEdges.get(edgeKey(node, gap, stem));
  }

  terminal(node: number): Terminal | undefined {
    return this.terminals.get(node);
  }

  get hasStems(): boolean {
    return this.stemEdges.size > 0;
  }
}

const edgeKey = (node: number, gap: Gap, token: string) => `${node}\u0000${gap}${token}`;

export interface TermMatcher {
  readonly tries: readonly Trie[];
  /** The persona's locale's words, or undefined for words by script. */
  readonly segmenter: Intl.Segmenter | undefined;
  /** Words of the longest phrase (by blanks), for a stream's held-back words. */
  readonly longestWords: number;
}

function buildMatcher(entries: readonly TermEntry[], locale: string | null): TermMatcher {
  const segmenter = locale === null ? undefined : segmenterFor(locale);
  const sensitive = new Trie(true, segmenter);
  const insensitive = new Trie(false, segmenter);
  let longestWords = 1;
  entries.forEach((entry, index) => {
    const trie = entry.caseSensitive ? sensitive : insensitive;
    const phrases = [entry.term, ...entry.replaces];
    phrases.forEach((phrase, at) => {
      const inflected = entry.forms === 'inflected' || (entry.forms === undefined && inflectsByDefault(phrase));
      trie.add(phrase, { entry: index, isTerm: at === 0, inflected });
      longestWords = Math.max(longestWords, phrase.split(' ').length);
    });
  });
  return { tries: [sensitive, insensitive].filter((trie) => trie.size > 0), segmenter, longestWords };
}

/**
 * Built once per term base and kept in the process's pattern cache, bounded in bytes. A compiled
 * persona's rules are one object for all its requests, so its list finds its matcher without
 * serializing 2,000 entries into a cache key on each of a stream's many looks.
 */
const byList = new WeakMap<readonly TermEntry[], Map<string, TermMatcher>>();

/** `locale`: the persona's, whose words (Intl.Segmenter) the entries and the text are cut into; null for words by script. */
export function termMatcher(entries: readonly TermEntry[], locale: string | null): TermMatcher {
  let forList = byList.get(entries);
  if (forList === undefined) byList.set(entries, (forList = new Map()));
  const known = forList.get(locale ?? '');
  if (known !== undefined) return known;
  const matcher = compiledPattern('terms', `${locale ?? ''}\u0000${JSON.stringify(entries)}`, () => buildMatcher(entries, locale), (built) =>
    built.tries.reduce((sum, trie) => sum + trie.size, 0),
  );
  forList.set(locale ?? '', matcher);
  return matcher;
}

/** The stems a word may be an inflection of, with that inflection (lower-case endings only: "LOGINS" is matched by the case-insensitive trie). */
function stemsOf(word: string): [string, Ending][] {
  const stems: [string, Ending][] = [];
  const add = (cut: number, ending: Ending, tail = '') => {
    if (word.length - cut >= 2) stems.push([word.slice(0, word.length - cut) + tail, ending]);
  };
  const last = word.charAt(word.length - 1);
  if (last === 's') {
    add(1, 'plural');
    if (/(?:s|x|z|ch|sh|o)es$/.test(word)) add(2, 'plural');
    if (word.endsWith('ies')) add(3, 'plural', 'y');
  } else if (last === 'd') {
    if (word.endsWith('ed')) add(2, 'past');
    if (word.endsWith('ed')) add(1, 'past');
    if (word.endsWith('ied')) add(3, 'past', 'y');
  } else if (last === 'g' && word.endsWith('ing')) {
    add(3, 'progressive');
    add(3, 'progressive', 'e');
  }
  return stems;
}

interface Candidate {
  last: number;
  end: number;
  terminal: Terminal;
  ending?: Ending;
  apostrophe?: string;
}

const APOSTROPHES = new Set(["'", '\u2019']);

/**
 * Every non-overlapping occurrence of the entries, left to right; the longest wins where several
 * start at one place (so a kept "Login Manager" hides the replaced "login" inside it). An
 * occurrence touching a protected span is skipped.
 */
export function findTerms(text: string, matcher: TermMatcher, isProtected: OverlapTest): TermMatch[] {
  if (matcher.tries.length === 0) return [];
  const tokens = tokenize(text, matcher.segmenter);
  const { starts, ends, kinds, gaps } = tokens;
  const count = starts.length;
  const word = (i: number) => text.slice(starts[i], ends[i]);
  const isLetter = (i: number) => i >= 0 && i < count && kinds[i] !== Kind.Other;
  /** "customer_id" is one identifier: tokens `first`..`first + 2` are a letter, "_" and a letter, nothing between them. */
  const identifier = (first: number) =>
    first >= 0 && first + 2 < count && isLetter(first) && isLetter(first + 2) && word(first + 1) === '_' &&
    gaps[first + 1] === Gap.None && gaps[first + 2] === Gap.None;

  const matches: TermMatch[] = [];
  for (let i = 0; i < count; ) {
    let best: Candidate | undefined;
    for (const trie of matcher.tries) {
      const found = walk(trie, i);
      if (found && (!best || found.end > best.end)) best = found;
    }
    if (best === undefined) {
      i++;
      continue;
    }
    const start = starts[i]!;
    const badStart = kinds[i] === Kind.Word && identifier(i - 2);
    const badEnd = kinds[best.last] === Kind.Word && identifier(best.last);
    if (badStart || badEnd || isProtected(start, best.end)) {
      i++;
      continue;
    }
    matches.push({
      start,
      end: best.end,
      text: text.slice(start, best.end),
      entry: best.terminal.entry,
      isTerm: best.terminal.isTerm,
      ...(best.ending === undefined ? {} : { ending: best.ending }),
      ...(best.apostrophe === undefined ? {} : { apostrophe: best.apostrophe }),
    });
    i = best.last + 1;
  }
  return matches;

  function walk(trie: Trie, from: number): Candidate | undefined {
    let best: Candidate | undefined;
    let node = 0;
    for (let j = from; j < count; j++) {
      const gap = j === from ? Gap.None : gaps[j]!;
      if (gap === Gap.Break) break;
      const token = trie.key(word(j));
      if (trie.hasStems && kinds[j] === Kind.Word) {
        for (const [stem, ending] of stemsOf(token)) {
          const child = trie.stemChild(node, gap, stem);
          if (child !== undefined) {
            best = { last: j, end: ends[j]!, terminal: trie.terminal(child)!, ending };
            break;
          }
        }
      }
      const child = trie.child(node, gap, token);
      if (child === undefined) break;
      node = child;
      const terminal = trie.terminal(node);
      if (terminal === undefined) continue;
      best = { last: j, end: ends[j]!, terminal };
      // A possessive: the word, an apostrophe and an s, nothing between them.
      if (terminal.inflected && kinds[j] === Kind.Word && j + 2 < count && gaps[j + 1] === Gap.None && gaps[j + 2] === Gap.None) {
        const apostrophe = word(j + 1);
        if (APOSTROPHES.has(apostrophe) && word(j + 2).toLowerCase() === 's') {
          best = { last: j + 2, end: ends[j + 2]!, terminal, ending: 'possessive', apostrophe };
        }
      }
    }
    return best;
  }
}

/**
 * The term given the ending the replaced word had, by the regular spelling rules on its last
 * letter: "sign-in" → "sign-ins", "create" → "created", "copy" → "copies". Only the term's own
 * inflection is added: the ending never moves inside a phrase.
 */
export function inflect(term: string, ending: Ending | undefined, apostrophe = "'"): string {
  if (ending === undefined) return term;
  if (ending === 'possessive') return `${term}${apostrophe}s`;
  const consonantY = /[^aeiou\W]y$/iu.test(term);
  if (!/\p{L}$/u.test(term)) return term + (ending === 'plural' ? 's' : ending === 'past' ? 'ed' : 'ing');
  switch (ending) {
    case 'plural':
      return consonantY ? `${term.slice(0, -1)}ies` : /(?:s|x|z|ch|sh)$/iu.test(term) ? `${term}es` : `${term}s`;
    case 'past':
      return consonantY ? `${term.slice(0, -1)}ied` : /e$/iu.test(term) ? `${term}d` : `${term}ed`;
    case 'progressive':
      return /[^e]e$/iu.test(term) ? `${term.slice(0, -1)}ing` : `${term}ing`;
  }
}
