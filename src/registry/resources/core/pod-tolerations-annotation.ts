/**
 * The `scheduler.alpha.kubernetes.io/tolerations` pod annotation, which kube 1.32 still validates
 * (ValidateTolerationsInPodAnnotations): the value is decoded as Go's encoding/json decodes it into
 * []core.Toleration (the same error texts), then each toleration is validated under
 * `metadata.annotations.scheduler.alpha.kubernetes.io/tolerations[i]`.
 */
import { FieldError, FieldPath, fieldErrors, goJsonScan, unmarshalTypeMessage } from '../../../api';
import type { Toleration } from './pod-types';

export const TOLERATIONS_ANNOTATION = 'scheduler.alpha.kubernetes.io/tolerations';

type Kind = 'object' | 'array' | 'string' | 'number' | 'bool' | 'null';

const scalar = /true|false|null|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/y;

/** Reads values from text goJsonScan has accepted: scalars decoded, containers skipped without recursion. */
class Reader {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    while (' \t\r\n'.includes(this.s[this.i] ?? 'x')) this.i++;
  }

  peek(): string | undefined {
    this.ws();
    return this.s[this.i];
  }

  /** Consumes `c` (known to be there). */
  take(c: string): void {
    this.ws();
    if (this.s[this.i] === c) this.i++;
  }

  private stringEnd(from: number): number {
    let j = from + 1;
    while (this.s[j] !== '"') j += this.s[j] === '\\' ? 2 : 1;
    return j + 1;
  }

  string(): string {
    this.ws();
    const end = this.stringEnd(this.i);
    const v = JSON.parse(this.s.slice(this.i, end)) as string;
    this.i = end;
    return v;
  }

  /** One value: its kind, and its text for a number or its decoded value for a string or bool. */
  value(): { kind: Kind; text?: string; str?: string } {
    const c = this.peek();
    if (c === '"') return { kind: 'string', str: this.string() };
    if (c === '{' || c === '[') {
      let depth = 0;
      do {
        const d = this.s[this.i];
        if (d === '"') {
          this.i = this.stringEnd(this.i);
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') depth--;
        this.i++;
      } while (depth > 0);
      return { kind: c === '{' ? 'object' : 'array' };
    }
    scalar.lastIndex = this.i;
    const text = scalar.exec(this.s)?.[0] ?? '';
    this.i += text.length;
    if (text === 'null') return { kind: 'null' };
    if (text === 'true' || text === 'false') return { kind: 'bool', text };
    return { kind: 'number', text };
  }
}

const fieldTypes: Record<string, string> = { key: 'string', operator: 'core.TolerationOperator', value: 'string', effect: 'core.TaintEffect', tolerationSeconds: 'int64' };

/** Go's field match: the exact JSON name, else one that differs only in case. */
function fieldFor(key: string): string | undefined {
  if (key in fieldTypes) return key;
  return Object.keys(fieldTypes).find((f) => f.toLowerCase() === key.toLowerCase());
}

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

/** strconv.ParseInt(text, 10, 64) succeeds. */
function isInt64(text: string): boolean {
  if (!/^-?\d+$/.test(text)) return false;
  const n = BigInt(text);
  return n >= MIN_INT64 && n <= MAX_INT64;
}

/** json.Unmarshal into []core.Toleration: the tolerations, or the first error Go reports. */
export function decodeTolerations(text: string): { tolerations: Toleration[] } | { error: string } {
  const scanned = goJsonScan(Buffer.from(text, 'utf8'));
  if ('error' in scanned) return { error: scanned.error };
  const r = new Reader(text);
  const top = r.peek();
  if (top === 'n') return { tolerations: [] };
  if (top !== '[') return { error: unmarshalTypeMessage(r.value().kind, '[]core.Toleration') };
  let first: string | undefined;
  const fail = (msg: string) => (first ??= msg);
  const tolerations: Toleration[] = [];
  r.take('[');
  while (r.peek() !== ']' && r.peek() !== undefined) {
    if (r.peek() === ',') r.take(',');
    const t: Record<string, unknown> = {};
    tolerations.push(t as Toleration);
    if (r.peek() !== '{') {
      const v = r.value();
      if (v.kind !== 'null') fail(unmarshalTypeMessage(v.kind, 'core.Toleration'));
      continue;
    }
    r.take('{');
    while (r.peek() !== '}' && r.peek() !== undefined) {
      if (r.peek() === ',') r.take(',');
      const key = r.string();
      r.take(':');
      const v = r.value();
      const name = fieldFor(key);
      if (!name || v.kind === 'null') {
        if (name === 'tolerationSeconds') delete t.tolerationSeconds;
        continue;
      }
      const goType = fieldTypes[name] as string;
      const where = { struct: 'Toleration', name };
      if (name === 'tolerationSeconds') {
        if (v.kind === 'number' && isInt64(v.text ?? '')) t[name] = Number(v.text);
        else fail(unmarshalTypeMessage(v.kind === 'number' ? `number ${v.text ?? ''}` : v.kind, goType, where));
      } else if (v.kind === 'string') t[name] = v.str;
      else fail(unmarshalTypeMessage(v.kind, goType, where));
    }
    r.take('}');
  }
  return first ? { error: first } : { tolerations };
}

/**
 * ValidateTolerationsInPodAnnotations for a pod whose annotation is set: kube reports a value that
 * does not decode at `metadata.annotations` with the annotation's key as the value.
 */
export function tolerationsAnnotationErrors(
  value: string,
  path: FieldPath,
  validateTolerations: (t: Toleration[], p: FieldPath) => FieldError[],
): FieldError[] {
  const decoded = decodeTolerations(value);
  if ('error' in decoded) return [fieldErrors.invalid(path, TOLERATIONS_ANNOTATION, decoded.error)];
  return decoded.tolerations.length ? validateTolerations(decoded.tolerations, path.child(TOLERATIONS_ANNOTATION)) : [];
}
