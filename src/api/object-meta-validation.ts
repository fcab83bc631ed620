/**
 * ObjectMeta validation after k8s.io/apimachinery/pkg/api/validation/objectmeta.go
 * (ValidateObjectMetaAccessor, ValidateObjectMetaAccessorUpdate), pkg/apis/meta/v1/validation
 * (ValidateManagedFields, ValidateFieldManager) and apiserver pkg/registry/rest BeforeCreate
 * (the second, path-segment name pass). Field paths are `metadata.<x>`; messages are kube's.
 */
import { FieldError, FieldPath, fieldErrors } from './field-errors';
import { goQuote, goValue } from './go-format';
import { isQualifiedName, validateAnnotations, validateLabels } from './labels';
import { byteLength, NameValidator, nameIsDNSLabel, nameValidatorFor, validatePathSegmentName } from './names';
import { ManagedFieldsEntry, ObjectMeta, OwnerReference } from './types';

/** kube's FieldImmutableErrorMsg. */
export const FIELD_IMMUTABLE_ERROR_MSG = 'field is immutable';
/** kube's IsNegativeErrorMsg. */
export const IS_NEGATIVE_ERROR_MSG = 'must be greater than or equal to 0';
/** Max length (bytes) of a managedFields manager name. */
export const FIELD_MANAGER_MAX_LENGTH = 128;
/** Max length (bytes) of a managedFields subresource name. */
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;

const META = FieldPath.root('metadata');

/** Options of validateObjectMeta. */
export interface ObjectMetaValidationOptions {
  /** Namespaced types require metadata.namespace; cluster-scoped types forbid it. */
  namespaced: boolean;
  /** The type's name rule: NameIsDNSSubdomain, NameIsDNSLabel, NameIsDNS1035Label, or a custom ValidateNameFunc. */
  nameValidation: 'subdomain' | 'label' | 'dns1035' | NameValidator;
}

/**
 * Create-time metadata validation as kube runs it: the strategy's ValidateObjectMeta with the type's
 * name rule, then — only if that found nothing — the generic pass with ValidatePathSegmentName.
 * Pure; returns the errors of whichever pass failed (empty = valid). As in kube, a generateName'd
 * object must already carry its generated name (names.generateName) when validated.
 */
export function validateObjectMeta(meta: ObjectMeta, opts: ObjectMetaValidationOptions): FieldError[] {
  const nameFn = typeof opts.nameValidation === 'function' ? opts.nameValidation : nameValidatorFor(opts.nameValidation);
  const errs = validateObjectMetaAccessor(meta, opts.namespaced, nameFn);
  if (errs.length) return errs;
  return validateObjectMetaAccessor(meta, opts.namespaced, validatePathSegmentName);
}

/** ValidateObjectMetaAccessor: one pass with the given name function. */
export function validateObjectMetaAccessor(meta: ObjectMeta, namespaced: boolean, nameFn: NameValidator): FieldError[] {
  const errs: FieldError[] = [];
  const generateName = meta.generateName ?? '';
  if (generateName) {
    for (const msg of nameFn(generateName, true)) errs.push(fieldErrors.invalid(META.child('generateName'), generateName, msg));
  }
  const name = meta.name ?? '';
  if (!name) errs.push(fieldErrors.required(META.child('name'), 'name or generateName is required'));
  else for (const msg of nameFn(name, false)) errs.push(fieldErrors.invalid(META.child('name'), name, msg));

  const namespace = meta.namespace ?? '';
  if (namespaced) {
    if (!namespace) errs.push(fieldErrors.required(META.child('namespace')));
    else {
      for (const msg of nameIsDNSLabel(namespace, false)) {
        errs.push(fieldErrors.invalid(META.child('namespace'), namespace, msg));
      }
    }
  } else if (namespace) {
    errs.push(fieldErrors.forbidden(META.child('namespace'), 'not allowed on this type'));
  }

  const generation = meta.generation ?? 0;
  if (generation < 0) errs.push(fieldErrors.invalid(META.child('generation'), generation, IS_NEGATIVE_ERROR_MSG));
  errs.push(...validateLabels(meta.labels, META.child('labels')));
  errs.push(...validateAnnotations(meta.annotations, META.child('annotations')));
  errs.push(...validateOwnerReferences(meta.ownerReferences, META.child('ownerReferences')));
  errs.push(...validateFinalizers(meta.finalizers, META.child('finalizers')));
  errs.push(...validateManagedFields(meta.managedFields, META.child('managedFields')));
  return errs;
}

/**
 * ValidateObjectMetaAccessorUpdate: no new finalizers while deleting, resourceVersion present,
 * generation not decremented, name/namespace/uid/creationTimestamp/deletionTimestamp/
 * deletionGracePeriodSeconds immutable, then labels, annotations, ownerReferences, managedFields.
 */
export function validateObjectMetaUpdate(newMeta: ObjectMeta, oldMeta: ObjectMeta): FieldError[] {
  const errs: FieldError[] = [];
  if (oldMeta.deletionTimestamp) {
    errs.push(...validateNoNewFinalizers(newMeta.finalizers, oldMeta.finalizers, META.child('finalizers')));
  }
  if (!newMeta.resourceVersion) {
    errs.push(fieldErrors.invalid(META.child('resourceVersion'), '', 'must be specified for an update'));
  }
  const newGen = newMeta.generation ?? 0;
  if (newGen < (oldMeta.generation ?? 0)) {
    errs.push(fieldErrors.invalid(META.child('generation'), newGen, 'must not be decremented'));
  }
  immutableString(errs, newMeta.name, oldMeta.name, 'name');
  immutableString(errs, newMeta.namespace, oldMeta.namespace, 'namespace');
  immutableString(errs, newMeta.uid, oldMeta.uid, 'uid');
  // creationTimestamp is a metav1.Time value: unset prints as Go's zero time.
  if (!sameTime(newMeta.creationTimestamp, oldMeta.creationTimestamp)) {
    errs.push(immutable('creationTimestamp', goTimeString(newMeta.creationTimestamp) ?? goTimeString(ZERO_TIME) ?? ''));
  }
  // deletionTimestamp is a *metav1.Time: unset prints as null.
  if (!sameTime(newMeta.deletionTimestamp, oldMeta.deletionTimestamp)) {
    errs.push(immutable('deletionTimestamp', goTimeString(newMeta.deletionTimestamp) ?? 'null'));
  }
  if ((newMeta.deletionGracePeriodSeconds ?? null) !== (oldMeta.deletionGracePeriodSeconds ?? null)) {
    errs.push(fieldErrors.invalid(META.child('deletionGracePeriodSeconds'), newMeta.deletionGracePeriodSeconds ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  }
  errs.push(...validateLabels(newMeta.labels, META.child('labels')));
  errs.push(...validateAnnotations(newMeta.annotations, META.child('annotations')));
  errs.push(...validateOwnerReferences(newMeta.ownerReferences, META.child('ownerReferences')));
  errs.push(...validateManagedFields(newMeta.managedFields, META.child('managedFields')));
  return errs;
}

function immutableString(errs: FieldError[], nv: string | undefined, ov: string | undefined, field: string): void {
  if ((nv ?? '') !== (ov ?? '')) errs.push(fieldErrors.invalid(META.child(field), nv ?? '', FIELD_IMMUTABLE_ERROR_MSG));
}

function immutable(field: string, valueText: string): FieldError {
  return { ...fieldErrors.invalid(META.child(field), null, FIELD_IMMUTABLE_ERROR_MSG), badValueText: valueText };
}

const ZERO_TIME = '0001-01-01T00:00:00Z';

/** Semantic equality of metav1.Time values (same instant); unset ≡ zero time. */
function sameTime(a: string | null | undefined, b: string | null | undefined): boolean {
  // The same text is the same instant (every update compares the stored creationTimestamp with itself).
  if (a === b) return true;
  const ta = a ? Date.parse(a) : Date.parse(ZERO_TIME);
  const tb = b ? Date.parse(b) : Date.parse(ZERO_TIME);
  if (Number.isNaN(ta) || Number.isNaN(tb)) return (a ?? '') === (b ?? '');
  return ta === tb;
}

/** Go's time.Time.String() in UTC, e.g. `2024-05-01 10:20:30 +0000 UTC`; undefined when unset. */
export function goTimeString(ts: string | null | undefined): string | undefined {
  if (!ts) return undefined;
  const t = Date.parse(ts);
  if (Number.isNaN(t)) return goQuote(ts);
  const d = new Date(t);
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  let frac = '';
  if (d.getUTCMilliseconds()) frac = `.${p(d.getUTCMilliseconds(), 3)}`.replace(/0+$/, '');
  return (
    `${p(d.getUTCFullYear(), 4)}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ` +
    `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}${frac} +0000 UTC`
  );
}

/** ValidateNoNewFinalizers. */
function validateNoNewFinalizers(nf: string[] | undefined, of: string[] | undefined, path: FieldPath): FieldError[] {
  const old = new Set(of ?? []);
  const extra = [...new Set(nf ?? [])].filter((f) => !old.has(f)).sort();
  if (!extra.length) return [];
  return [fieldErrors.forbidden(path, `no new finalizers can be added if the object is being deleted, found new finalizers ${goValue(extra)}`)];
}

/** ValidateFinalizers: qualified names; `orphan` and `foregroundDeletion` are mutually exclusive. */
export function validateFinalizers(finalizers: string[] | undefined, path: FieldPath | string): FieldError[] {
  const errs: FieldError[] = [];
  if (!finalizers) return errs;
  for (const f of finalizers) for (const msg of isQualifiedName(f)) errs.push(fieldErrors.invalid(path, f, msg));
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    errs.push(fieldErrors.invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return errs;
}

/** schema.FromAPIVersionAndKind's group/version split (an unparseable apiVersion yields empty ones). */
function splitApiVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const slashes = apiVersion.split('/').length - 1;
  if (slashes === 0) return { group: '', version: apiVersion };
  if (slashes === 1) {
    const i = apiVersion.indexOf('/');
    return { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
  }
  return { group: '', version: '' };
}

/** Go's %#v of a metav1.OwnerReference (pointer addresses are not reproducible; a placeholder is used). */
function goOwnerReference(r: OwnerReference): string {
  const ptr = (b: boolean | undefined): string => (b === undefined ? '(*bool)(nil)' : '(*bool)(0xc000000000)');
  return (
    `v1.OwnerReference{APIVersion:${goQuote(r.apiVersion ?? '')}, Kind:${goQuote(r.kind ?? '')}, ` +
    `Name:${goQuote(r.name ?? '')}, UID:${goQuote(r.uid ?? '')}, Controller:${ptr(r.controller)}, ` +
    `BlockOwnerDeletion:${ptr(r.blockOwnerDeletion)}}`
  );
}

/** ValidateOwnerReferences: required fields, Event banned as owner, at most one controller. Paths carry no index (as kube). */
export function validateOwnerReferences(refs: OwnerReference[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!refs) return errs;
  let firstController = '';
  for (const ref of refs) {
    const { group, version } = splitApiVersion(ref.apiVersion ?? '');
    if (!version) errs.push(fieldErrors.invalid(path.child('apiVersion'), ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) errs.push(fieldErrors.invalid(path.child('kind'), ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) errs.push(fieldErrors.invalid(path.child('name'), ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) errs.push(fieldErrors.invalid(path.child('uid'), ref.uid ?? '', 'uid must not be empty'));
    if (group === '' && version === 'v1' && ref.kind === 'Event') {
      errs.push({
        ...fieldErrors.invalid(path, null, '/v1, Kind=Event is disallowed from being an owner'),
        badValueText: goOwnerReference(ref),
      });
    }
    if (ref.controller === true) {
      const cur = `${ref.kind ?? ''}/${ref.name ?? ''}`;
      if (firstController) {
        errs.push({
          ...fieldErrors.invalid(
            path,
            null,
            `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${cur}`,
          ),
          badValueText: `[]v1.OwnerReference{${refs.map(goOwnerReference).join(', ')}}`,
        });
      } else {
        firstController = cur;
      }
    }
  }
  return errs;
}

const printableRe = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** ValidateFieldManager: at most 128 bytes, printable characters only (`invalid character U+0007 (at position 3)`). */
export function validateFieldManager(manager: string, path: FieldPath | string): FieldError[] {
  const errs: FieldError[] = [];
  if (byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) errs.push(fieldErrors.tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  let bytePos = 0;
  for (const ch of manager) {
    if (!printableRe.test(ch)) {
      const hex = (ch.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0');
      errs.push(fieldErrors.invalid(path, manager, `invalid character U+${hex} (at position ${bytePos})`));
    }
    bytePos += byteLength(ch);
  }
  return errs;
}

/** ValidateManagedFields: operation Apply/Update, fieldsType FieldsV1, manager and subresource limits. */
export function validateManagedFields(entries: ManagedFieldsEntry[] | undefined, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  (entries ?? []).forEach((e, i) => {
    const p = path.index(i);
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      errs.push(fieldErrors.invalid(p.child('operation'), e.operation ?? '', 'must be `Apply` or `Update`'));
    }
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') {
      errs.push(fieldErrors.invalid(p.child('fieldsType'), e.fieldsType, 'must be `FieldsV1`'));
    }
    errs.push(...validateFieldManager(e.manager ?? '', p.child('manager')));
    if (byteLength(e.subresource ?? '') > MAX_SUBRESOURCE_NAME_LENGTH) {
      errs.push(fieldErrors.tooLong(p.child('subresource'), MAX_SUBRESOURCE_NAME_LENGTH));
    }
  });
  return errs;
}
