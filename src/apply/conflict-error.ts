/** The 409 an apply conflict becomes (apimachinery managedfields/internal/conflict.go, NewApplyConflict). */
import { ApiError, failureStatus, goQuote } from '../api';
import { parseManagerIdentity } from './managed-fields';
import { pathString } from './path-element';
import { Conflict } from './updater';

/** kube's printManager: `"m"`, `"m" with subresource "status"`, `"m" using v1` for Update entries. */
export function printManager(identity: string): string {
  let info;
  try {
    info = parseManagerIdentity(identity);
  } catch {
    return goQuote(identity);
  }
  let s = goQuote(info.manager);
  if (info.subresource) s += ` with subresource ${goQuote(info.subresource)}`;
  if (info.operation === 'Update') s += ` using ${info.apiVersion ?? ''}`;
  return s;
}

/** The conflict message: one conflict on one line, several grouped by manager (sorted). */
export function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0] as Conflict;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), pathString(c.path)]);
  const lines: string[] = [];
  for (const m of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(m)}:`);
    for (const p of byManager.get(m) ?? []) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

/** 409 Conflict with one FieldManagerConflict cause per field; details carry no name or kind. */
export function applyConflictError(conflicts: readonly Conflict[]): ApiError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  return new ApiError(failureStatus(409, 'Conflict', conflictMessage(conflicts), { causes }));
}
