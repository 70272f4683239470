/**
 * Providers echo the caller's key in their error texts, whole, in part or re-encoded
 * ("Incorrect API key provided: sk-test-ab**********wxyz", an upper-cased copy, a URL
 * with the key percent-encoded, a Basic header in base64), and a model may repeat one
 * inside an answer. Every provider text passes through here before it can reach a
 * message, a log line, a stored row or a response.
 *
 * The key is found in any letter case and with anything between its characters
 * (separators, percent signs): text and key are both compared as their ASCII letters and
 * digits alone, lower-cased, and every run of at least `MIN_FRAGMENT` such characters
 * that also occurs in the key is redacted, with whatever lies between them. The same
 * goes for the key's hex, base64 (at each of its three byte alignments) and
 * percent-encoded forms, with longer runs for the encodings, whose small alphabets would
 * otherwise match by chance. Linear in the text: one set lookup per position and form.
 */

const REDACTED = '[redacted]';
/** Shorter fragments are too common to be evidence of the key (and too short to help an attacker). */
const MIN_FRAGMENT = 6;
/** A run of base64 or hex characters this long is not there by chance. */
const MIN_BASE64_FRAGMENT = 8;
const MIN_HEX_FRAGMENT = 12;
/** Google's key prefix, spelled in two parts so that secret scanners (which look for it) do not flag this file. */
export const GOOGLE_KEY_PREFIX = 'AI' + 'za';
/** How the providers' keys begin; of two that overlap, the longer first. */
export const PROVIDER_KEY_PREFIXES = ['sk-ant-', 'sk-', GOOGLE_KEY_PREFIX, 'gsk_', 'xai-'] as const;
/**
 * Anything that looks like a provider key, masked or not, even if it is not the caller's.
 * Masked whole: even the public prefix (`sk-ant-`) is a fragment of the caller's key.
 */
const KEY_LIKE = new RegExp(String.raw`\b(?:${PROVIDER_KEY_PREFIXES.join('|')})[\w*\-]{4,}`, 'g');
const BEARER = /\bBearer\s+\S+/gi;

/** The text's ASCII letters and digits, lower-cased, as character codes, and where each came from. */
function comparable(text: string): { codes: Uint8Array; length: number; origin: Uint32Array } {
  const codes = new Uint8Array(text.length);
  const origin = new Uint32Array(text.length);
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if (code >= 65 && code <= 90) code += 32;
    else if (!((code >= 97 && code <= 122) || (code >= 48 && code <= 57))) continue;
    codes[length] = code;
    origin[length++] = i;
  }
  return { codes, length, origin };
}

/**
 * Windows of `size` characters are compared by a rolling hash (one multiplication per
 * position, no string per position: the scrub runs on every answer), and a hash that
 * matches is confirmed against the runs themselves.
 */
const BASE = 131;
const power = (size: number) => {
  let result = 1;
  for (let k = 1; k < size; k++) result = Math.imul(result, BASE);
  return result;
};

/**
 * A set of hashes in an open-addressing table at most half full: nearly every window of a text
 * misses at its first probe. Built per refine from a key's few hundred windows, so it is one
 * plain array (a typed array or a `Set` of numbers costs several times more to set up).
 */
class HashSet {
  /** The hashes (unsigned, 32-bit), -1 where a slot is empty. */
  private readonly slots: number[];
  private readonly mask: number;

  constructor(capacity: number) {
    let size = 16;
    while (size < capacity * 2) size <<= 1;
    this.slots = new Array<number>(size).fill(-1);
    this.mask = size - 1;
  }

  add(hash: number): void {
    let slot = (Math.imul(hash, 0x9e3779b1) >>> 0) & this.mask;
    for (; this.slots[slot] !== -1; slot = (slot + 1) & this.mask) if (this.slots[slot] === hash) return;
    this.slots[slot] = hash;
  }

  has(hash: number): boolean {
    for (let slot = (Math.imul(hash, 0x9e3779b1) >>> 0) & this.mask; this.slots[slot] !== -1; slot = (slot + 1) & this.mask) {
      if (this.slots[slot] === hash) return true;
    }
    return false;
  }
}

const runAt = (codes: Uint8Array, at: number, size: number) => String.fromCharCode(...codes.subarray(at, at + size));

/** Calls `each` with the start and hash of every window of `size` codes. */
function eachWindow(codes: Uint8Array, length: number, size: number, each: (at: number, hash: number) => void): void {
  if (length < size) return;
  const top = power(size);
  let hash = 0;
  for (let i = 0; i < size; i++) hash = (Math.imul(hash, BASE) + (codes[i] as number)) >>> 0;
  for (let at = 0; ; at++) {
    each(at, hash);
    if (at + size >= length) return;
    hash = (Math.imul(hash - Math.imul(codes[at] as number, top), BASE) + (codes[at + size] as number)) >>> 0;
  }
}

/**
 * The hashes of every run of `size` characters of `forms`, in comparable characters; the runs
 * themselves are spelled out only when a hash first matches (most texts hold no fragment at all).
 */
function formOf(forms: string[], size: number): Form {
  const comparables = forms.map(comparable);
  const hashes = new HashSet(comparables.reduce((sum, { length }) => sum + length, 0));
  for (const { codes, length } of comparables) eachWindow(codes, length, size, (_at, hash) => hashes.add(hash));
  let runs: Set<string> | undefined;
  const isRun = (run: string) => {
    runs ??= new Set(comparables.flatMap(({ codes, length }) => Array.from({ length: Math.max(0, length - size + 1) }, (_, at) => runAt(codes, at, size))));
    return runs.has(run);
  };
  // Spelled out only for a stream's look at its end.
  let spelled: string[] | undefined;
  const contains = (run: string) => {
    spelled ??= comparables.map(({ codes, length }) => String.fromCharCode(...codes.subarray(0, length)));
    return spelled.some((form) => form.includes(run));
  };
  return { size, hashes, isRun, contains };
}

/** The base64 of `secret` wherever it starts within a larger encoded value: drops the characters its neighbours share. */
function base64Forms(secret: Buffer): string[] {
  return [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), secret]).toString('base64').replace(/=+$/, '');
    return encoded.slice(Math.ceil((offset * 4) / 3), encoded.length - 2);
  });
}

interface Inspection {
  codes: Uint8Array;
  length: number;
  origin: Uint32Array;
  covered: Uint8Array | undefined;
}

const NOTHING_SETTLED = Object.freeze({ shown: '', consumed: 0 });

interface Form {
  size: number;
  hashes: HashSet;
  /** Whether a run whose hash matched is one of the key's runs. */
  isRun: (run: string) => boolean;
  /** Whether `run` (comparable characters, shorter than `size`) occurs in the key's form: a window that may still complete. */
  contains: (run: string) => boolean;
}

export class SecretScrubber {
  private readonly forms: Form[] = [];
  /** Keys too short for fragments: removed only where they appear whole (in any case). */
  private readonly shortKeys: string[] = [];

  constructor(secrets: readonly string[]) {
    const plain: string[] = [];
    const encoded: { base64: string[]; hex: string[] } = { base64: [], hex: [] };
    for (const secret of secrets) {
      if (secret.length === 0) continue;
      if (comparable(secret).length < MIN_FRAGMENT) {
        this.shortKeys.push(secret.toLowerCase());
        continue;
      }
      const bytes = Buffer.from(secret);
      plain.push(secret, encodeURIComponent(secret));
      encoded.base64.push(...base64Forms(bytes));
      encoded.hex.push(bytes.toString('hex'));
    }
    if (plain.length === 0) return;
    this.forms.push(formOf(plain, MIN_FRAGMENT), formOf(encoded.base64, MIN_BASE64_FRAGMENT), formOf(encoded.hex, MIN_HEX_FRAGMENT));
  }

  scrub(text: string): string {
    let out = text;
    for (const key of this.shortKeys) out = replaceIgnoringCase(out, key);
    return this.forms.length === 0 ? out : this.redact(out, this.inspect(out));
  }

  /**
   * JSON text a model wrote (a tool call's arguments), scrubbed string by string so it stays
   * JSON: a redaction takes whatever lies between two fragments of a key, which across the
   * text could be a quote. Text without a key comes back as it is; text that is not JSON is
   * scrubbed as text.
   */
  scrubJson(text: string): string {
    if (this.scrub(text) === text) return text;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return this.scrub(text);
    }
    const walk = (node: unknown): unknown => {
      if (typeof node === 'string') return this.scrub(node);
      if (Array.isArray(node)) return node.map(walk);
      if (typeof node !== 'object' || node === null) return node;
      return Object.fromEntries(Object.entries(node).map(([key, member]) => [this.scrub(key), walk(member)]));
    };
    try {
      return JSON.stringify(walk(value));
    } catch {
      // Nested deeper than the stack goes: scrubbed as text, since a key must not pass.
      return this.scrub(text);
    }
  }

  /**
   * For a streamed answer: of `text` (arrived, not shown yet), the part up to `limit` whose
   * scrubbing no later text can change, scrubbed (`shown`), and how many characters of `text`
   * it takes (`consumed`; 0 when nothing can be shown yet).
   */
  settledPrefix(text: string, limit: number): { shown: string; consumed: number } {
    // Without short keys (nearly always) one look at the text serves both the cut and the scrub.
    const inspected = this.shortKeys.length === 0 && this.forms.length > 0 ? this.inspect(text) : undefined;
    const consumed = Math.min(limit, this.undecidedFrom(text, inspected));
    if (consumed === 0) return NOTHING_SETTLED;
    const scrubbed = inspected === undefined ? this.scrub(text) : this.redact(text, inspected);
    if (scrubbed === text) return { shown: text.slice(0, consumed), consumed };
    const shown = this.scrub(text.slice(0, consumed));
    // A fragment of a key across the cut, already whole: shown once the cut has moved past it.
    return scrubbed.startsWith(shown) ? { shown, consumed } : NOTHING_SETTLED;
  }

  /**
   * Where the scrubbing of `text` may still change once more text follows it, or `text.length`:
   * the end of a key's fragment or short key that the next piece may complete, or a redacted
   * run at the end that a next fragment would extend. What comes before is scrubbed for good.
   */
  private undecidedFrom(text: string, inspected: Inspection | undefined): number {
    let from = text.length;
    const lower = text.toLowerCase();
    // Lower-casing can change a string's length outside ASCII; then hold all of it rather than guess.
    if (this.shortKeys.length > 0 && lower.length !== text.length) return 0;
    for (const key of this.shortKeys) {
      for (let size = Math.min(key.length - 1, lower.length); size > 0; size--) {
        if (!key.startsWith(lower.slice(lower.length - size))) continue;
        from = Math.min(from, text.length - size);
        break;
      }
    }
    if (this.forms.length === 0) return from;
    const { codes, length, origin, covered } = inspected ?? this.inspect(text);
    // The first comparable position a window completed by later text may cover.
    let open = length;
    const end = runAt(codes, Math.max(0, length - MIN_HEX_FRAGMENT), Math.min(length, MIN_HEX_FRAGMENT));
    for (const { size, contains } of this.forms) {
      // A suffix that is not in the form has no longer suffix that is: grow it from one character.
      let run = 0;
      while (run < Math.min(size - 1, length) && contains(end.slice(end.length - run - 1))) run++;
      if (run > 0) open = Math.min(open, length - run);
    }
    // Such a window would join a redacted run ending just before it into one redaction.
    while (covered !== undefined && open > 0 && covered[open - 1] === 1) open--;
    return open === length ? from : Math.min(from, origin[open] as number);
  }

  /** The text's comparable characters and which of them a key's fragment covers. */
  private inspect(text: string): Inspection {
    const { codes, length, origin } = comparable(text);
    return { codes, length, origin, covered: this.covered(codes, length) };
  }

  /** `text` with every covered run, and what lies between its characters, replaced by one mark. */
  private redact(text: string, { length, origin, covered }: Inspection): string {
    if (covered === undefined) return text;
    let result = '';
    let copiedTo = 0;
    for (let i = 0; i < length; ) {
      if (covered[i] === 0) {
        i++;
        continue;
      }
      let j = i;
      while (j + 1 < length && covered[j + 1] === 1) j++;
      result += text.slice(copiedTo, origin[i]) + REDACTED;
      copiedTo = (origin[j] as number) + 1;
      i = j + 1;
    }
    return result + text.slice(copiedTo);
  }

  /** The comparable positions to redact, or undefined when there are none. */
  private covered(codes: Uint8Array, length: number): Uint8Array | undefined {
    let covered: Uint8Array | undefined;
    for (const { size, hashes, isRun } of this.forms) {
      eachWindow(codes, length, size, (at, hash) => {
        if (!hashes.has(hash) || !isRun(runAt(codes, at, size))) return;
        covered ??= new Uint8Array(length);
        covered.fill(1, at, at + size);
      });
    }
    return covered;
  }
}

function replaceIgnoringCase(text: string, lowerKey: string): string {
  const lower = text.toLowerCase();
  // Lower-casing can change a string's length outside ASCII; then positions would not line up.
  if (lower.length !== text.length) return text.split(lowerKey).join(REDACTED);
  let out = '';
  let from = 0;
  for (let at = lower.indexOf(lowerKey); at !== -1; at = lower.indexOf(lowerKey, from)) {
    out += text.slice(from, at) + REDACTED;
    from = at + lowerKey.length;
  }
  return out + text.slice(from);
}

/**
 * A provider's text made safe and short enough for an error message: every key of the request
 * removed, key-looking tokens masked, whitespace collapsed, at most `maxLength` characters.
 */
export function cleanProviderText(text: string, scrubber: SecretScrubber, maxLength = 300): string {
  // Anything past this is cut anyway.
  const bounded = text.length > maxLength * 8 ? text.slice(0, maxLength * 8) : text;
  // Masking first: a key-looking token is then replaced whole, not left as the tail after a fragment.
  const masked = bounded.replace(KEY_LIKE, REDACTED).replace(BEARER, `Bearer ${REDACTED}`);
  const clean = scrubber
    .scrub(masked)
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1)}…` : clean;
}
