// The contract scenarios' summary for the run's log: which documented statuses the target produced, what
// it cannot serve (loudly: these are skips, not coverage), what did not apply, and what could not be
// cleaned up.
import type { Operation } from '@platform-api/validator';
import type { SiteHarness } from './harness.js';

/** Why a real WordPress did not produce a documented status in these scenarios. */
function whyNotProduced(operation: Operation, status: string): string {
  const id = operation.operationId;
  if (status === '500') return 'a server fault (database or file system failure); not provoked';
  if (status === '501' && id === 'getOembed') return 'only without the PHP XML extension (format=xml)';
  if (status === '501' && id.endsWith('Revision'))
    return 'delete_post on a revision maps to do_not_allow: 403 comes first';
  if (status === '501') return 'this type supports trash (the 501 is for types that do not)';
  if (status === '200' && id.endsWith('Revision'))
    return 'WordPress refuses every user (403); the plugin-extended site may allow it';
  if (status === '404' && id.endsWith('Autosave'))
    return "WordPress answers the parent's latest autosave whatever the autosave id";
  if (status === '403' && id.startsWith('get')) return 'published content is readable by every user';
  if (status === '401' && id === 'createBatch')
    return 'an anonymous batch answers 207 with a 401 per request';
  if (status === '401' && id.startsWith('list'))
    return 'published content is public; anonymous edit context is 401 elsewhere';
  if ((status === '400' || status === '404') && id.endsWith('Index'))
    return 'no argument to validate; the namespace always exists';
  return 'not produced by these scenarios';
}

/** The documented statuses of an operation (`200`, `404`; not ranges or `default`). */
export function documentedStatuses(operation: Operation): string[] {
  return Object.keys(operation.responses).filter((key) => /^\d{3}$/.test(key));
}

export function contractSummary(harness: SiteHarness, cleanupFailures: readonly string[]): string[] {
  const lines = [`Site contract summary — ${harness.target.name}`];
  const operations = harness.validator.operations.filter((operation) => operation.kind === 'path');
  const missing: string[] = [];
  let documented = 0;
  let seen = 0;
  for (const operation of operations) {
    const statuses = documentedStatuses(operation);
    const got = harness.produced.get(operation.operationId) ?? new Set<number>();
    documented += statuses.length;
    const absent = statuses.filter((status) => !got.has(Number(status)));
    seen += statuses.length - absent.length;
    if (absent.length > 0 && !harness.notServed.has(operation.operationId)) {
      for (const status of absent)
        missing.push(`${operation.operationId} ${status} — ${whyNotProduced(operation, status)}`);
    }
  }
  lines.push(
    `Operations: ${operations.length}; called and served: ${operations.length - harness.notServed.size}; documented statuses produced: ${seen}/${documented}`,
  );
  lines.push(`SKIPPED operations (called, but the target cannot serve them): ${harness.notServed.size}`);
  for (const [operationId, reason] of harness.notServed) lines.push(`  ${operationId} — ${reason}`);
  const distinct = [...new Set(harness.notApplicable)];
  if (distinct.length > 0) {
    lines.push(`Assertions not applicable to this target: ${distinct.length}`);
    for (const line of distinct) lines.push(`  ${line}`);
  }
  if (missing.length > 0 && harness.mock) {
    // The reasons are WordPress's; on the mock most are the scenarios skipped there.
    lines.push(
      `Documented statuses not produced: ${missing.length} (the scenarios that need WordPress are skipped)`,
    );
  } else if (missing.length > 0) {
    lines.push(`Documented statuses not produced: ${missing.length}`);
    for (const line of missing) lines.push(`  ${line}`);
  }
  if (cleanupFailures.length > 0)
    lines.push('CLEANUP FAILURES:', ...cleanupFailures.map((line) => `  ${line}`));
  return lines;
}
