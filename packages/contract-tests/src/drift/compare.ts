// The comparison itself: every route both the spec and the target describe, by method and argument.

import type { Operation, SpecValidator } from '@platform-api/validator';
import { wpBeforeFor, wpNoRoute } from '../versions.js';
import { placeholderNames, routeToTemplate, shape } from './routes.js';
import { compareShapes, specShape, targetShape } from './shapes.js';
import { absenceReason, specArguments } from './spec-arguments.js';
import type { DriftOptions, DriftReport, RouteIndex, RouteIndexEntry } from './types.js';

/** The spec's operations of one path. */
interface SpecRoute {
  template: string;
  operations: Operation[];
}

/** What every comparison of a run shares: the spec, the target's version, and the report it fills. */
interface Comparison {
  validator: SpecValidator;
  version: string | undefined;
  report: DriftReport;
}

export function compareRouteIndex(
  validator: SpecValidator,
  index: RouteIndex,
  options: DriftOptions = {},
): DriftReport {
  const specByShape = specRoutesByShape(validator, options.routePrefix ?? '');
  const report: DriftReport = {
    compared: [],
    differences: [],
    expected: [],
    notDescribed: [],
    notOffered: [],
  };
  const comparison = { validator, version: options.targetVersion, report };
  const matchedShapes = new Set<string>();
  for (const [route, entry] of Object.entries(index.routes)) {
    const targetTemplate = routeToTemplate(route);
    const spec = specByShape.get(shape(targetTemplate));
    if (!spec) {
      report.notDescribed.push(route);
      continue;
    }
    matchedShapes.add(shape(targetTemplate));
    // Target argument names of path placeholders → the spec's names, by position.
    const targetNames = placeholderNames(targetTemplate);
    const specNames = placeholderNames(spec.template);
    const rename = new Map(targetNames.map((name, i) => [name, specNames[i] ?? name]));
    const targetMethods = compareMethods(comparison, spec, entry);
    let argumentsCompared = 0;
    for (const operation of spec.operations)
      argumentsCompared += compareArguments(comparison, spec, operation, entry, rename);
    report.compared.push({
      template: spec.template,
      targetRoute: route,
      methods: [...targetMethods],
      argumentsCompared,
    });
  }
  for (const [key, spec] of specByShape) {
    if (!matchedShapes.has(key)) report.notOffered.push(spec);
  }
  return report;
}

/** The spec's path operations grouped by the shape of their path (placeholders unnamed). */
function specRoutesByShape(validator: SpecValidator, prefix: string): Map<string, SpecRoute> {
  const specByShape = new Map<string, SpecRoute>();
  for (const operation of validator.operations) {
    if (operation.kind !== 'path') continue;
    const key = shape(`${prefix}${operation.path}`);
    const entry = specByShape.get(key) ?? { template: operation.path, operations: [] };
    entry.operations.push(operation);
    specByShape.set(key, entry);
  }
  return specByShape;
}

/** The methods one side has and the other lacks; returns the target's methods. */
function compareMethods(
  { version, report }: Comparison,
  spec: SpecRoute,
  entry: RouteIndexEntry,
): Set<string> {
  const specMethods = new Set(spec.operations.map((operation) => operation.method.toUpperCase()));
  const targetMethods = new Set(entry.methods.map((method) => method.toUpperCase()));
  const operationFor = (method: string) =>
    spec.operations.find((operation) => operation.method.toUpperCase() === method);
  for (const method of targetMethods) {
    const operation = operationFor(method);
    if (!operation || wpNoRoute(operation.node)) {
      report.differences.push({
        route: spec.template,
        method,
        aspect: 'method',
        spec: operation ? 'x-wp-no-route' : 'absent',
        target: 'offered',
      });
    }
  }
  for (const method of specMethods) {
    if (targetMethods.has(method)) continue;
    const reason = absenceReason(operationFor(method)?.node, version);
    if (reason) report.expected.push({ route: spec.template, method, reason });
    else
      report.differences.push({
        route: spec.template,
        method,
        aspect: 'method',
        spec: 'described',
        target: 'absent',
      });
  }
  return targetMethods;
}

/** One operation's arguments against its endpoint's; returns how many both sides have. */
function compareArguments(
  comparison: Comparison,
  spec: SpecRoute,
  operation: Operation,
  entry: RouteIndexEntry,
  rename: Map<string, string>,
): number {
  const { validator, version, report } = comparison;
  const method = operation.method.toUpperCase();
  const endpoint = entry.endpoints.find((candidate) =>
    candidate.methods.map((m) => m.toUpperCase()).includes(method),
  );
  if (!endpoint) return 0;
  const specArgs = specArguments(validator, operation);
  const targetArgs = new Map(
    Object.entries(endpoint.args ?? {}).map(([name, schema]) => [rename.get(name) ?? name, schema]),
  );
  let argumentsCompared = 0;
  for (const [name, targetSchema] of targetArgs) {
    const specArg = specArgs.get(name);
    const newer = specArg && absenceReason(specArg.marks, version);
    if (!specArg || newer) {
      report.differences.push({
        route: spec.template,
        method,
        argument: name,
        aspect: 'argument',
        spec: newer ?? 'absent',
        target: 'accepted',
      });
      continue;
    }
    argumentsCompared++;
    const at = { route: spec.template, method, argument: name };
    const older =
      version === undefined
        ? undefined
        : specArg.marks.map((marks) => wpBeforeFor(marks, version)).find(Boolean);
    const schema = older?.schema ?? specArg.schema;
    compareShapes(at, specShape(validator.document, schema), targetShape(targetSchema), report.differences);
    const targetRequired = targetSchema.required === true;
    // A path parameter is required by being in the URL; WordPress does not mark route groups required.
    if (!specArg.inPath && targetRequired !== specArg.required) {
      report.differences.push({ ...at, aspect: 'required', spec: specArg.required, target: targetRequired });
    }
  }
  for (const [name, specArg] of specArgs) {
    // The route's own groups constrain path parameters; WordPress lists them as arguments only sometimes.
    if (targetArgs.has(name) || specArg.inPath) continue;
    const reason = absenceReason(specArg.marks, version);
    if (reason) report.expected.push({ route: spec.template, method, argument: name, reason });
    else
      report.differences.push({
        route: spec.template,
        method,
        argument: name,
        aspect: 'argument',
        spec: 'described',
        target: 'absent',
      });
  }
  return argumentsCompared;
}
