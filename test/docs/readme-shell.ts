/**
 * Reading the README's shell examples as a test: which blocks, which commands, and what output
 * each command shows.
 *
 * The convention the README follows (and this parser enforces): in a ```sh block, comment lines
 * after a blank line describe the next command; comment lines right after a command, with no
 * blank line between, are what that command prints. A ```text block right after a ```sh block
 * is what the block's last command prints. In shown output, `…` stands for anything on that line.
 */

export interface ShellStep {
  /** The command as bash reads it, continuation lines included. */
  command: string;
  /** The output lines the README shows for it (may be empty: nothing shown). */
  expected: string[];
  /** The README line the command starts on, for failure messages. */
  line: number;
}

/** The part of a markdown document under a heading (any level), up to the next heading of the same or a higher level. */
export function section(markdown: string, title: string): { text: string; firstLine: number } {
  const lines = markdown.split('\n');
  let inFence = false;
  let start = -1;
  let level = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('```')) inFence = !inFence;
    if (inFence) continue;
    const heading = /^(#{1,6}) (.+)$/.exec(line);
    if (!heading) continue;
    if (start >= 0 && heading[1]!.length <= level) return { text: lines.slice(start, i).join('\n'), firstLine: start + 1 };
    if (start < 0 && heading[2]!.trim() === title) {
      start = i;
      level = heading[1]!.length;
    }
  }
  if (start < 0) throw new Error(`README has no section "${title}"`);
  return { text: lines.slice(start).join('\n'), firstLine: start + 1 };
}

/** Whether a line leaves bash inside a quote or a `\` continuation, given the state it started in. */
function quoteStateAfter(line: string, state: 'none' | 'single' | 'double'): { state: 'none' | 'single' | 'double'; continues: boolean } {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (state === 'single') {
      if (c === "'") state = 'none';
    } else if (c === '\\') {
      if (i === line.length - 1) return { state, continues: true };
      i++;
    } else if (state === 'double') {
      if (c === '"') state = 'none';
    } else if (c === "'") state = 'single';
    else if (c === '"') state = 'double';
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) break;
  }
  return { state, continues: state !== 'none' };
}

/** The commands of a section's ```sh blocks, in order, with the output each shows. */
export function shellSteps(sectionText: string, firstLine: number): ShellStep[] {
  const lines = sectionText.split('\n');
  const steps: ShellStep[] = [];
  let block: 'sh' | 'text' | 'other' | undefined;
  let lastBlockWasSh = false;
  let current: ShellStep | undefined;
  let quote: 'none' | 'single' | 'double' = 'none';
  let continuing = false;
  let afterBlank = true;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fence = /^```(\w*)\s*$/.exec(line);
    if (fence && (block === undefined ? true : !continuing)) {
      if (block === undefined) {
        const language = fence[1]!;
        block = language === 'sh' ? 'sh' : language === 'text' && lastBlockWasSh ? 'text' : 'other';
        afterBlank = true;
        if (block === 'sh') current = undefined;
      } else {
        lastBlockWasSh = block === 'sh';
        block = undefined;
      }
      continue;
    }
    if (block === undefined && line.trim() !== '') lastBlockWasSh = false;
    if (block === 'text') {
      if (line.trim() !== '' && current) current.expected.push(line);
      continue;
    }
    if (block !== 'sh') continue;

    if (continuing && current) {
      current.command += `\n${line}`;
      ({ state: quote, continues: continuing } = quoteStateAfter(line, quote));
      continue;
    }
    if (line.trim() === '') {
      afterBlank = true;
      continue;
    }
    if (line.startsWith('#')) {
      // Right after a command: its output. After a blank line: a description of the next one.
      if (!afterBlank && current) current.expected.push(line.replace(/^#\s?/, ''));
      continue;
    }
    current = { command: line, expected: [], line: firstLine + i };
    steps.push(current);
    afterBlank = false;
    ({ state: quote, continues: continuing } = quoteStateAfter(line, 'none'));
  }
  return steps;
}

/** Values that differ from run to run, replaced the same way in what the README shows and what came back. */
const MASKS: ReadonlyArray<[RegExp, string]> = [
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>'],
  [/\b(prk|key)_[A-Za-z0-9_-]+/g, '$1_<id>'],
  [/\b\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)?/g, '<date>'],
  [/\b(Age|Retry-After|RateLimit-Reset): \d+/gi, '$1: <n>'],
  [/\b(input_tokens|output_tokens)=\d+/g, '$1=<n>'],
  [/"(inputTokens|outputTokens)":\d+/g, '"$1":<n>'],
  [/(provider|total);dur=[\d.]+/g, '$1;dur=<n>'],
];

export const mask = (text: string) => MASKS.reduce((masked, [pattern, replacement]) => masked.replace(pattern, replacement), text);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `Header-Name: value` lines match whatever case the server sends the name in (HTTP does not care). */
const anyCase = (name: string) => [...name].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escapeRegExp(c))).join('');

/**
 * A pattern that matches when every shown line is a whole line of the actual output, in order
 * (`…` is anything within that line); lines the README leaves out may come between. A shown line
 * that starts with blanks continues the one before it: the README wraps long JSON.
 */
export function expectedPattern(expected: string[]): RegExp {
  const logical: string[] = [];
  for (const raw of expected) {
    if (/^\s/.test(raw) && logical.length > 0) logical[logical.length - 1] += raw.trim();
    else logical.push(raw.trim());
  }
  const parts = logical.map((text) => {
    const line = mask(text);
    const header = /^([A-Za-z][A-Za-z0-9-]*): (.*)$/.exec(line);
    const [prefix, rest] = header ? [`${anyCase(header[1]!)}: `, header[2]!] : ['', line];
    return prefix + rest.split('…').map(escapeRegExp).join('[^\\n]*?');
  });
  return new RegExp(`(?:^|\\n)${parts.join('\\n(?:[^\\n]*\\n)*?')}(?=\\n|$)`);
}

/** What a command printed, as the pattern reads it: masked, without curl's CRs, blank lines dropped. */
export const normalizeOutput = (output: string) => mask(output.replace(/\r/g, '')).split('\n').filter((line) => line.trim() !== '').join('\n');

/** The comment a ```sh block may carry on the line above its fence. */
const MARKER = /^<!-- readme-test: (not run: (.*\S)|needs PostgreSQL and Redis) -->$/;

export interface ShellBlockMarkers {
  /** Blocks marked `not run`, with their reasons, by line of their fence. */
  notRun: Array<{ line: number; reason: string }>;
  /** Fences of blocks marked as needing PostgreSQL and Redis. */
  needsServices: number[];
  /** Shell blocks in another language than `sh`, which the test would not see. */
  otherShells: number[];
}

export function shellBlockMarkers(markdown: string): ShellBlockMarkers {
  const lines = markdown.split('\n');
  const markers: ShellBlockMarkers = { notRun: [], needsServices: [], otherShells: [] };
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)/.exec(lines[i]!);
    if (!fence) continue;
    if (!inFence && /^(bash|shell|console|zsh)$/.test(fence[1]!)) markers.otherShells.push(i + 1);
    if (!inFence && fence[1] === 'sh') {
      const marker = MARKER.exec(lines[i - 1] ?? '');
      if (marker?.[2]) markers.notRun.push({ line: i + 1, reason: marker[2] });
      else if (marker) markers.needsServices.push(i + 1);
    }
    inFence = !inFence;
  }
  return markers;
}

/** The document with the given ```sh blocks (by line of their fence) turned into plain text, lines kept where they were. */
export function withoutBlocks(markdown: string, fences: number[]): string {
  const lines = markdown.split('\n');
  for (const line of fences) lines[line - 1] = '```skipped';
  return lines.join('\n');
}
