// The drift check as scenarios: the site spec against the site's own description of its routes
// (`GET /wp-json/?context=help`), compared as the site's version has them (the spec's x-wp-since,
// x-wp-before and x-wp-no-route marks). Every other difference is either fixed in the spec or listed in
// site-drift-allowlist.yaml, for the versions it applies to, with a reviewed reason; an entry that applies
// to the site's version but matches nothing there fails too.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SpecValidator } from '@platform-api/validator';
import { parse } from 'yaml';
import {
  type AllowEntry,
  compareRouteIndex,
  type DriftReport,
  describeDifference,
  type RouteIndex,
  type Triage,
  triageDifferences,
} from '../../drift/index.js';
import { olderThan, wpSince } from '../../versions.js';
import type { SiteHarness } from './harness.js';
import type { Scenario } from './scenario.js';

/** The package's reviewed allow-list (from src/targets/site or dist/targets/site, three folders up). */
export const allowListFile = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../../site-drift-allowlist.yaml',
);

export function readAllowList(): AllowEntry[] {
  const parsed = parse(readFileSync(allowListFile, 'utf8')) as { entries?: AllowEntry[] } | null;
  return parsed?.entries ?? [];
}

export function driftScenarios(h: SiteHarness): Scenario[] {
  const allowList = readAllowList();
  const version = h.target.version;
  let report: DriftReport | undefined;
  let triage: Triage | undefined;
  // A mock answers the spec's example of the help index, not a route index of its own.
  const notApplicable = () => (h.wordpress ? undefined : 'the mock has no route index of its own to compare');
  const compared = () => {
    if (!report || !triage) throw new Error('the route index was not read (see "reads the route index")');
    return { report, triage };
  };
  const scenarios: Scenario[] = [
    {
      name: 'reads the route index',
      run: async () => {
        const index = await h.call('getIndex', 200, { query: { context: 'help' } });
        report = compareRouteIndex(h.validator, index.json as RouteIndex, { targetVersion: version });
        triage = triageDifferences(report.differences, allowList, version);
        assert.ok(report.compared.length > 40, `only ${report.compared.length} routes compared`);
        for (const line of driftSummary(h.validator, report, triage, version)) h.session.log(line);
      },
    },
    {
      name: 'every allow-list entry has a reason',
      run: async () => {
        const unexplained = allowList.filter((entry) => (entry.reason?.trim().length ?? 0) <= 10);
        assert.deepEqual(unexplained, [], 'allow-list entries without a reason');
      },
    },
    {
      name: 'has no difference that is not fixed in the spec or allow-listed',
      run: async () => {
        assert.deepEqual(compared().triage.unexpected.map(describeDifference), [], 'unexpected differences');
      },
    },
    {
      name: `has no stale allow-list entry for ${version ?? 'this version'}`,
      run: async () => {
        const stale = compared().triage.stale.map((entry) => JSON.stringify(entry));
        assert.deepEqual(stale, [], 'allow-list entries that match nothing on this version');
      },
    },
  ];
  return scenarios.map((scenario) => ({ ...scenario, name: `drift › ${scenario.name}`, notApplicable }));
}

function driftSummary(
  validator: SpecValidator,
  report: DriftReport,
  triage: Triage,
  version: string | undefined,
): string[] {
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const allowedByRoute = new Map<string, number>();
  const unexpectedByRoute = new Map<string, number>();
  const expectedByRoute = new Map<string, number>();
  for (const { difference } of triage.allowed) count(allowedByRoute, difference.route);
  for (const difference of triage.unexpected) count(unexpectedByRoute, difference.route);
  for (const absence of report.expected) count(expectedByRoute, absence.route);
  const width = Math.max(...report.compared.map((route) => route.template.length), 10);
  const lines = [`Site drift check against WordPress ${version ?? '(version unknown)'}`];
  lines.push(`${'route'.padEnd(width)}  ${'methods'.padEnd(26)} args  allowed  by-version  unexpected`);
  for (const route of report.compared) {
    const cell = (map: Map<string, number>, size: number) =>
      String(map.get(route.template) ?? 0).padStart(size);
    lines.push(
      `${route.template.padEnd(width)}  ${route.methods.join(',').padEnd(26)} ${String(route.argumentsCompared).padStart(4)}  ${cell(allowedByRoute, 7)}  ${cell(expectedByRoute, 10)}  ${cell(unexpectedByRoute, 10)}`,
    );
  }
  const used = new Set(triage.allowed.map((allowed) => allowed.entry)).size;
  lines.push(
    `Routes compared: ${report.compared.length}; differences: ${report.differences.length} (allowed ${triage.allowed.length}, unexpected ${triage.unexpected.length}); absent as the spec's version marks say: ${report.expected.length}; allow-list entries: ${used} used, ${triage.stale.length} stale, ${triage.notApplicable.length} for other versions`,
  );
  if (triage.unexpected.length > 0) {
    lines.push('UNEXPECTED differences (fix the spec or allow-list with a reason):');
    for (const difference of triage.unexpected) lines.push(`  ${describeDifference(difference)}`);
  }
  const skipped: string[] = [];
  for (const { template, operations } of report.notOffered) {
    const plugin = operations.some((operation) => operation.node['x-plugin'] === true);
    skipped.push(
      `  ${template} — not offered by the target${plugin ? ' (x-plugin: a plugin namespace, absent from core WordPress)' : ''}`,
    );
  }
  for (const absence of report.expected.filter((absence) => absence.argument === undefined))
    skipped.push(`  ${absence.method} ${absence.route} — not offered (${absence.reason})`);
  for (const route of report.compared) {
    // Operations the spec marks as newer than the target (`x-wp-since`): registered, but not served.
    const operations = validator.operations
      .filter((operation) => operation.path === route.template)
      .filter((operation) => {
        const since = wpSince(operation.node);
        return since !== undefined && (version === undefined || olderThan(version, since));
      })
      .map(
        (operation) =>
          `${operation.operationId} (x-wp-since ${wpSince(operation.node)}, target ${version ?? 'unknown'})`,
      );
    if (operations.length > 0)
      skipped.push(`  ${route.template} — arguments compared, but not servable: ${operations.join('; ')}`);
  }
  lines.push(`SKIPPED (described by the spec, not served by the target): ${skipped.length}`, ...skipped);
  lines.push(
    `Not described by the spec (routes the spec leaves out on purpose, not failures): ${report.notDescribed.length}`,
    ...report.notDescribed.map((route) => `  ${route}`),
  );
  return lines;
}
