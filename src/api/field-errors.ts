/** Field errors as kube's k8s.io/apimachinery/pkg/util/validation/field renders them. */
import { goValue } from './go-format';

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose rendering never shows the bad value. */
const valueless = new Set<FieldErrorType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

export interface FieldError {
  type: FieldErrorType;
  /** Rendered path, e.g. `metadata.labels`, `data[tls.crt]`, `spec.hard[requests.cpu]`. */
  field: string;
  badValue?: unknown;
  /** Preformatted value text where Go's %#v differs from goValue (e.g. a Quantity struct dump). */
  badValueText?: string;
  detail?: string;
}

/** The part after `<field>: ` (kube's ErrorBody); also the `message` of a StatusCause. */
export function fieldErrorBody(e: FieldError): string {
  let s = typeText[e.type];
  if (!valueless.has(e.type) && (e.badValue !== undefined || e.badValueText !== undefined)) {
    s += `: ${e.badValueText ?? goValue(e.badValue)}`;
  }
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/** Builds field paths the way field.Path renders them. */
export class FieldPath {
  private constructor(private readonly rendered: string) {}
  static root(name = ''): FieldPath {
    return new FieldPath(name);
  }
  child(name: string): FieldPath {
    return new FieldPath(this.rendered === '' ? name : `${this.rendered}.${name}`);
  }
  index(i: number): FieldPath {
    return new FieldPath(`${this.rendered}[${i}]`);
  }
  key(k: string): FieldPath {
    return new FieldPath(`${this.rendered}[${k}]`);
  }
  toString(): string {
    return this.rendered;
  }
}

export type PathLike = FieldPath | string;
const p = (path: PathLike): string => String(path);

export const fieldErrors = {
  required: (path: PathLike, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: p(path), detail }),
  invalid: (path: PathLike, value: unknown, detail = ''): FieldError => ({
    type: 'FieldValueInvalid',
    field: p(path),
    badValue: value,
    detail,
  }),
  notSupported: (path: PathLike, value: unknown, valid: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field: p(path),
    badValue: value,
    detail: valid.length ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : '',
  }),
  forbidden: (path: PathLike, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: p(path), detail }),
  duplicate: (path: PathLike, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field: p(path), badValue: value }),
  notFound: (path: PathLike, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field: p(path), badValue: value }),
  tooLong: (path: PathLike, maxLength: number): FieldError => ({
    type: 'FieldValueTooLong',
    field: p(path),
    detail: maxLength >= 0 ? `may not be more than ${maxLength} bytes` : 'value is too long',
  }),
  tooMany: (path: PathLike, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field: p(path),
    badValue: actual,
    detail: `must have at most ${max} items`,
  }),
  internal: (path: PathLike, err: string): FieldError => ({ type: 'InternalError', field: p(path), detail: err }),
};
