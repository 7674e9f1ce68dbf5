// Which defect a failure is, independent of the run that found it: its check, its operation and its message
// without what differs from run to run (the answer's body, ids, header values). The key matches a failure
// against a baseline; its short hash is the failure's case id, so the same defect keeps its id across runs
// and seeds (and the id a user copies from one report still names the defect in the next).
import { createHash } from 'node:crypto';
import type { Failure } from './session.js';

export type Defect = Pick<Failure, 'check' | 'operationId' | 'message'>;

/** The message without the parts a rerun changes. */
export function stableMessage(message: string): string {
  return (
    message
      // The validator appends the answer's body to several messages; the body is the run's data.
      .replace(
        /(; body|: server error, body|: the spec documents no body, got|: body is not JSON:) [\s\S]*$/,
        '$1 …',
      )
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
      .replace(/="[^"]*"/g, '="…"')
      // Timestamps, generated ids, sizes of generated values; statuses (3 digits) stay.
      .replace(/\d{5,}/g, '#')
  );
}

export function defectKey(defect: Defect): string {
  return `${defect.check}\n${defect.operationId}\n${stableMessage(defect.message)}`;
}

/**
 * Case ids for failures in report order: 8 hex digits of the defect key; the same defect found again in the
 * same run (another phase) gets `.2`, `.3`, … so ids stay unique within a report.
 */
export function caseIds(failures: readonly Defect[]): string[] {
  return numbered(failures).map(([, id]) => id);
}

/** Each failure (one object each) → its case id, as caseIds numbers them. */
export function caseIdsOf<T extends Defect>(failures: readonly T[]): Map<T, string> {
  return new Map(numbered(failures));
}

/** A defect's case id when it is the first of its kind in a report: 8 hex digits of its key. */
export function defectId(defect: Defect): string {
  return createHash('sha256').update(defectKey(defect)).digest('hex').slice(0, 8);
}

function numbered<T extends Defect>(failures: readonly T[]): Array<[T, string]> {
  const seen = new Map<string, number>();
  return failures.map((failure) => {
    const hash = defectId(failure);
    const count = (seen.get(hash) ?? 0) + 1;
    seen.set(hash, count);
    return [failure, count === 1 ? hash : `${hash}.${count}`];
  });
}

/** The skip reason of a result whose failures were all in the baseline. */
export const KNOWN_REASON = 'known failure from the baseline';
