/**
 * kube's warning recorder (apiserver `pkg/endpoints/filters/warning.go`) and Warning header format
 * (apimachinery `util/net.NewWarningHeader`), the one place Warning headers are made and written.
 *
 * - A warning becomes `299 - "<text>"`: only `"` and `\` are escaped, everything else (non-ASCII
 *   UTF-8 included) is written as-is.
 * - A text is dropped when empty or when it holds a control character (Go's unicode.IsControl:
 *   C0, DEL, C1). Texts are de-duplicated by exact text; the first occurrence keeps its place.
 * - Bounds, counted in runes of the texts: while the total stays within 4096 a warning is added
 *   whole. The first one that would pass 4096 switches to truncating mode: every warning recorded
 *   so far is re-emitted cut to its first 256 runes and the count restarts from those; later
 *   warnings are added cut to 256 runes until the count reaches 4096, after which they are
 *   discarded.
 *
 * JS strings are UTF-16; a lone surrogate (which Go could never hold: its JSON decoder turns one
 * into U+FFFD) is read as U+FFFD before anything else, so it is a valid rune of the text.
 */
import type { Response } from 'express';

export const truncateAtTotalRunes = 4 * 1024;
export const truncateItemRunes = 256;

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Go's unicode.IsControl: U+0000–U+001F and U+007F–U+009F. */
const control = /[\u0000-\u001f\u007f-\u009f]/;

/** The text as Go holds it after decoding: lone surrogates become U+FFFD. */
function wellFormed(text: string): string {
  return text.replace(loneSurrogate, '\uFFFD');
}

/** utf8.RuneCountInString of a well-formed string (a surrogate pair is one rune). */
function runeCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--; // the high half of a pair; its low half follows
  }
  return n;
}

/** The first `max` runes of a well-formed string (cut on a rune boundary, no ellipsis). */
function firstRunes(text: string, max: number): string {
  let runes = 0;
  for (let i = 0; i < text.length; i++) {
    if (runes === max) return text.slice(0, i);
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) i++;
    runes++;
  }
  return text;
}

/** NewWarningHeader(299, "", text): undefined when kube would refuse the text. */
export function warningHeaderValue(text: string): string | undefined {
  if (control.test(text)) return undefined;
  return `299 - "${text.replace(/["\\]/g, '\\$&')}"`;
}

/**
 * Node writes a header string one byte per character (latin1) on HTTP/1.1 and HTTP/2 and refuses
 * characters above U+00FF; Go writes the header's UTF-8 bytes. The UTF-8 bytes as a latin1 string
 * put exactly Go's bytes on the wire. (Node's HTTP/1.1 writer re-encodes the header block as UTF-8
 * when it is flushed together with a *string* body chunk or by flushHeaders(): bodies written after
 * warnings must be Buffers.)
 */
export function wireValue(value: string): string {
  return /^[\u0000-\u007f]*$/.test(value) ? value : Buffer.from(value, 'utf8').toString('latin1');
}

/** One request's recorder: add texts in order, read the resulting header values. */
export class WarningRecorder {
  private readonly recorded = new Set<string>();
  private readonly ordered: string[] = [];
  private written = 0;
  private truncating = false;
  private values: string[] = [];

  /** Called once, when the recorder switches to truncating (kube logs it). */
  constructor(private readonly onTruncate?: () => void) {}

  add(raw: string): void {
    if (raw.length === 0) return;
    if (this.truncating && this.written >= truncateAtTotalRunes) return;
    const text = wellFormed(raw);
    // Recorded (for dedup and the replay) before the header is checked, as kube does.
    if (this.recorded.has(text)) return;
    this.recorded.add(text);
    this.ordered.push(text);

    let shown = text;
    let runes = runeCount(text);
    if (this.truncating && runes > truncateItemRunes) {
      shown = firstRunes(text, truncateItemRunes);
      runes = truncateItemRunes;
    }
    const header = warningHeaderValue(shown);
    if (header === undefined) return;
    if (this.truncating || this.written + runes <= truncateAtTotalRunes) {
      this.written += runes;
      this.values.push(header);
      return;
    }
    // Past the bound: truncating from now on; replay everything recorded, cut to 256 runes.
    this.truncating = true;
    this.written = 0;
    this.values = [];
    this.onTruncate?.();
    for (const t of this.ordered) {
      let cut = t;
      let n = runeCount(t);
      if (n > truncateItemRunes) {
        cut = firstRunes(t, truncateItemRunes);
        n = truncateItemRunes;
      }
      const h = warningHeaderValue(cut);
      if (h === undefined) continue;
      this.written += n;
      this.values.push(h);
    }
  }

  /** The Warning header values (Unicode text; see wireValue for the bytes), in order. */
  get headers(): readonly string[] {
    return this.values;
  }

  get isTruncating(): boolean {
    return this.truncating;
  }

  /** Every later text is dropped unseen: truncating and the bound reached (nothing is recorded any more). */
  get isDiscarding(): boolean {
    return this.truncating && this.written >= truncateAtTotalRunes;
  }
}

/**
 * Appends `count` texts, made by `text(i)`, to a request's warning list — but only as many as the
 * recorder can still use: once the recorder fed with `list` has reached its discarding state, every
 * later text is dropped without being recorded, so the rest are neither formatted nor appended (the
 * headers made from the list are the same). For bodies with hundreds of thousands of unknown fields.
 */
export function appendWarnings(list: string[], count: number, text: (i: number) => string): void {
  if (count === 0) return;
  const r = new WarningRecorder();
  for (const t of list) r.add(t);
  for (let i = 0; i < count && !r.isDiscarding; i++) {
    const t = text(i);
    r.add(t);
    list.push(t);
  }
}

/** The Warning header values kube would send for these warnings, added in this order. */
export function warningHeaders(texts: Iterable<string>, onTruncate?: () => void): string[] {
  const r = new WarningRecorder(onTruncate);
  for (const t of texts) r.add(t);
  return [...r.headers];
}

/**
 * Sets the response's Warning headers from the request's warnings (replacing any set before, so
 * calling it again — e.g. from the error path — never doubles them). Nothing once headers are sent:
 * Go drops warnings added after the header was written too.
 */
export function writeWarnings(res: Response, texts: readonly string[]): void {
  if (res.headersSent) return;
  const values = texts.length ? warningHeaders(texts).map(wireValue) : [];
  if (values.length) res.setHeader('Warning', values);
  else if (res.hasHeader('Warning')) res.removeHeader('Warning');
}
