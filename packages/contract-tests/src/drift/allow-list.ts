// The reviewed differences (the allow-list): which entries apply to a version, which differences they
// allow, which entries went stale; and a difference as one line of a report.

import { inVersionRange } from '../versions.js';
import type { Difference, DriftAspect } from './types.js';

/**
 * A reviewed, allowed difference. `route`, `method` and `argument` may list several; `argument` is
 * omitted for methods. `versions` (a range such as `>=6.1 <6.3`, or a list of ranges) names the target versions the
 * entry applies to; without it the entry applies to every version.
 */
export interface AllowEntry {
  route: string | string[];
  method?: string | string[];
  argument?: string | string[];
  aspect: DriftAspect;
  versions?: string | string[];
  reason: string;
}

/** Whether an entry applies to a target version (an unknown version: every entry may apply). */
export function appliesTo(entry: AllowEntry, version: string | undefined): boolean {
  return entry.versions === undefined || version === undefined || inVersionRange(version, entry.versions);
}

function listOf(value: string | string[] | undefined): string[] | undefined {
  return value === undefined ? undefined : Array.isArray(value) ? value : [value];
}

function allows(entry: AllowEntry, difference: Difference): boolean {
  const routes = listOf(entry.route) ?? [];
  const methods = listOf(entry.method)?.map((method) => method.toUpperCase());
  return (
    routes.includes(difference.route) &&
    (methods === undefined || methods.includes(difference.method)) &&
    (difference.argument === undefined
      ? entry.argument === undefined
      : (listOf(entry.argument)?.includes(difference.argument) ?? false)) &&
    entry.aspect === difference.aspect
  );
}

export interface Triage {
  allowed: Array<{ difference: Difference; entry: AllowEntry }>;
  unexpected: Difference[];
  /** Entries that apply to the target's version but match no difference there (a known version only). */
  stale: AllowEntry[];
  /** Entries that do not apply to the target's version. */
  notApplicable: AllowEntry[];
}

export function triageDifferences(
  differences: Difference[],
  allowList: AllowEntry[],
  targetVersion?: string,
): Triage {
  const applicable = allowList.filter((entry) => appliesTo(entry, targetVersion));
  const triage: Triage = {
    allowed: [],
    unexpected: [],
    stale: [],
    notApplicable: allowList.filter((entry) => !applicable.includes(entry)),
  };
  const used = new Set<AllowEntry>();
  for (const difference of differences) {
    const entry = applicable.find((candidate) => allows(candidate, difference));
    if (entry) {
      used.add(entry);
      triage.allowed.push({ difference, entry });
    } else {
      triage.unexpected.push(difference);
    }
  }
  // With no version known, a version-bound entry may rightly match nothing; only unbound ones go stale.
  triage.stale = applicable.filter(
    (entry) => !used.has(entry) && (targetVersion !== undefined || entry.versions === undefined),
  );
  return triage;
}

export function describeDifference(difference: Difference): string {
  const where = `${difference.method} ${difference.route}${difference.argument ? ` ${difference.argument}` : ''}`;
  return `${where} [${difference.aspect}] spec ${JSON.stringify(difference.spec)} ≠ target ${JSON.stringify(difference.target)}`;
}
