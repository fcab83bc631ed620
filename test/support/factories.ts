/**
 * Request bodies many test files write: the smallest valid object of a kind, `extra` merged at the
 * top level (data, spec, status…; a `metadata` in extra replaces the one made here).
 */

export type Body = Record<string, unknown>;

/** A v1 Namespace. */
export const namespace = (name: string, extra: Body = {}) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...extra });

/** A v1 Secret. */
export const secret = (name: string, extra: Body = {}) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, ...extra });

/** A v1 ConfigMap. */
export const configMap = (name: string, extra: Body = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, ...extra });
