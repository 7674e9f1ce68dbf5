// What a successful write must leave behind, judged by reading it back in the stateful phase:
//   - update_persisted: after a change answered 2xx, a read of the same resource shows the values sent;
//     a representation written to fit its item (`x-state: {records}`: CSV rows of a dataset's columns) is
//     taken and read back record for record, and one that does not fit is refused (negative_data_rejection);
//   - unique_conflict: a second create reusing a value the spec marks unique answers the documented
//     conflict (409), exactly and, where case is ignored, in another letter case.
// Both compare answers of several requests, so neither can be replayed as one request.
import { CsvSyntaxError, formatCsv, parseCsv } from '@platform-api/csv';
import { isObject, type JsonObject, type Operation, type RecordsRule } from '@platform-api/validator';
import type { CallOptions, CallResult } from '../../client.js';
import { MALFORMED_REQUEST } from '../checks.js';
import { type Link, linkRequest } from '../links.js';
import type { Session } from '../session.js';
import {
  type ColumnField,
  columnFields,
  fittingRecords,
  recordsRule,
  wrongTypedField,
} from '../values/csv.js';
import { sampleOne } from '../values/index.js';
import { folded, requestBodySchema, resolveSchema, responseProperties, stateOf } from '../values/schemas.js';
import { uniqueFields } from '../values/unique.js';
import { uniqueValue } from './examples.js';

/** The fields of a sent body a read shows differently, each as one line; none when all were stored. */
export function unstoredFields(
  session: Pick<Session, 'validator'>,
  read: Pick<CallResult, 'operation' | 'status' | 'headers' | 'json'>,
  sent: JsonObject,
  declared: ReadonlySet<string>,
): string[] {
  const stored = read.json;
  if (!isObject(stored)) return [];
  const shown = responseProperties(session.validator, read.operation, read.status);
  const unstored: string[] = [];
  for (const [name, value] of Object.entries(sent)) {
    // What the body's schema does not declare is ignored by the spec's word. What the read does not show is
    // lost only where the read's schema has a place for it.
    if (!declared.has(name)) continue;
    if (!(name in stored)) {
      if (name in shown) unstored.push(`${name} is missing where ${preview(value)} was sent`);
      continue;
    }
    if (sameValue(value, stored[name])) continue;
    // A value the read's schema cannot hold as sent (a lenient "true" read back as true) is converted by
    // the spec's own types: it is compared only where the read could have shown it as sent (no schema
    // problem beyond those the read already has).
    const problems = (body: string) =>
      session.validator
        .validateResponse(read.operation, { status: read.status, headers: read.headers, body })
        .filter((problem) => problem.check === 'response_schema_conformance')
        .map((problem) => problem.message);
    const known = new Set(problems(JSON.stringify(stored)));
    const representable = problems(JSON.stringify({ ...stored, [name]: value })).every((problem) =>
      known.has(problem),
    );
    if (representable)
      unstored.push(`${name} reads ${preview(stored[name])} where ${preview(value)} was sent`);
  }
  return unstored;
}

/** Equal as JSON values; two date-times are equal when they name the same instant. */
export function sameValue(sent: unknown, stored: unknown): boolean {
  if (typeof sent === 'string' && typeof stored === 'string') {
    if (sent === stored) return true;
    const instant = /^\d{4}-\d{2}-\d{2}T/;
    return instant.test(sent) && instant.test(stored) && Date.parse(sent) === Date.parse(stored);
  }
  if (Array.isArray(sent) || Array.isArray(stored)) {
    if (!Array.isArray(sent) || !Array.isArray(stored) || sent.length !== stored.length) return false;
    return sent.every((item, index) => sameValue(item, stored[index]));
  }
  if (isObject(sent) && isObject(stored)) {
    const keys = new Set([...Object.keys(sent), ...Object.keys(stored)]);
    return [...keys].every((key) => sameValue(sent[key], stored[key]));
  }
  return sent === stored;
}

const preview = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

/**
 * The properties a JSON body's schema declares (its own and its allOf branches'), but those it declares
 * accepted and ignored (`x-state: {ignored: true}`: a vendor SDK sends them).
 */
function declaredProperties(session: Session, operation: Operation): Set<string> {
  const body = requestBodySchema(operation);
  if (!body?.mediaType.includes('json')) return new Set();
  const schema = folded(session.validator, resolveSchema(session.validator, body.schema));
  const properties = isObject(schema.node.properties) ? schema.node.properties : {};
  return new Set(
    Object.entries(properties)
      .filter(([, raw]) => stateOf(session.validator, raw).ignored !== true)
      .map(([name]) => name),
  );
}

/**
 * update_persisted for one write that answered 2xx: the item shows what its JSON body sent. A change is
 * read back through the reads of its own path; a create in its own answer and through the reads of the
 * item it made (`/v1/users` → `/v1/users/{id}`). Fields left out are not judged: whether they keep their
 * values is the spec's prose.
 */
export async function checkUpdatePersisted(
  session: Session,
  change: CallResult,
  reads: readonly Link[],
  { created = false } = {},
): Promise<void> {
  const { operation } = change;
  if (!session.enabled('update_persisted', operation.operationId)) return;
  const declared = declaredProperties(session, operation);
  const body = sentJson(change);
  if (!body || declared.size === 0) return;
  const judge = (read: CallResult, what: string) => {
    const problems = unstoredFields(session, read, body, declared);
    for (const problem of problems)
      session.fail(
        'update_persisted',
        operation,
        `after ${operation.operationId} answered ${change.status}, ${what}: ${problem}`,
        { request: change.request, answer: read },
      );
    if (problems.length === 0) session.pass('update_persisted', operation);
  };
  if (created) judge(change, 'its answer');
  const itemPath = new RegExp(`^${escapeRegExp(operation.path)}/\\{[^}/]+\\}$`);
  const ownReads = reads.filter((read) =>
    created ? itemPath.test(read.target.path) : read.target.path === operation.path,
  );
  for (const link of ownReads) {
    const read = await session.call(link.target, linkRequest(session, link));
    session.checkResponse(read);
    if (read.status >= 200 && read.status < 300) judge(read, link.target.operationId);
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A change of a representation, written to fit its item, and the records it carries. */
export interface FittingWrite {
  request: CallOptions;
  records: string[][];
  /** What a record is, and the item's columns the records fit, in order. */
  rule: RecordsRule;
  columns: ColumnField[];
}

/**
 * The request of a change link whose CSV body the spec describes record by record (`x-state: {records}`):
 * records that fit the item as a read of it shows it now (an earlier change may have changed its columns),
 * the second one with every field quoted (RFC 4180 allows it). Undefined for any other change.
 */
export async function fittingWrite(
  session: Session,
  link: Link,
  reads: readonly Link[],
): Promise<FittingWrite | undefined> {
  const body = requestBodySchema(link.target);
  const rule = body?.mediaType === 'text/csv' ? recordsRule(session.validator, body.schema) : undefined;
  // The item is what the longest read path above the representation's names.
  const itemRead = reads
    .filter((read) => link.target.path.startsWith(`${read.target.path}/`))
    .sort((a, b) => b.target.path.length - a.target.path.length)[0];
  if (!rule || !itemRead) return undefined;
  const item = await session.call(itemRead.target, linkRequest(session, itemRead));
  session.checkResponse(item);
  const columns = item.status === 200 ? columnFields(rule, item.json) : undefined;
  if (!columns) return undefined;
  const records = sampleOne(fittingRecords(columns), session.seed + session.requests);
  // RFC 4180's own line breaks, and every field quoted in one record: both forms a reader must take.
  const text = records
    .map((record, index) => formatCsv([record], { quoteAll: index === 1, lineBreak: '\r\n' }))
    .join('');
  return {
    request: { ...linkRequest(session, link), body: text, contentType: body?.mediaType },
    records,
    rule,
    columns,
  };
}

/**
 * update_persisted for a fitting write: it is taken (a 4xx other than the malformed-request ones, which
 * positive_data_acceptance judges, fails), and the read of the same path ends with its records (after the
 * records an append kept, or a header line).
 */
export async function checkFittingWrite(
  session: Session,
  change: CallResult,
  written: FittingWrite,
  reads: readonly Link[],
): Promise<void> {
  const { operation } = change;
  if (!session.enabled('update_persisted', operation.operationId)) return;
  const evidence = { request: change.request, answer: change };
  if (change.status >= 400 && change.status < 500 && !MALFORMED_REQUEST.has(change.status)) {
    session.fail(
      'update_persisted',
      operation,
      `records that fit the item's columns, as a read of it shows them, were refused with ${change.status}`,
      evidence,
    );
    return;
  }
  if (change.status < 200 || change.status >= 300) return;
  for (const link of reads.filter((read) => read.target.path === operation.path)) {
    const read = await session.call(link.target, linkRequest(session, link));
    session.checkResponse(read);
    if (read.status < 200 || read.status >= 300) continue;
    let stored: string[][];
    try {
      stored = parseCsv(read.text);
    } catch (error) {
      if (!(error instanceof CsvSyntaxError)) throw error;
      session.fail(
        'update_persisted',
        operation,
        `after ${operation.operationId} answered ${change.status}, ${link.target.operationId} answered text that is not CSV: ${error.message} (line ${error.line})`,
        { request: change.request, answer: read },
      );
      continue;
    }
    const tail = stored.slice(Math.max(0, stored.length - written.records.length));
    const lost = written.records.findIndex((record, index) => !sameValue(record, tail[index]));
    if (lost < 0 && tail.length === written.records.length) session.pass('update_persisted', operation);
    else
      session.fail(
        'update_persisted',
        operation,
        `after ${operation.operationId} answered ${change.status}, ${link.target.operationId} does not end with the records sent: record ${lost + 1} ${preview(written.records[lost])} reads ${preview(tail[lost])}`,
        { request: change.request, answer: read },
      );
  }
}

/**
 * negative_data_rejection for a fitting write that was taken: the same write no longer fits the item, and
 * must be refused, when its first record has a field more, and when one of its fields is a value of another
 * column type that its own column's type does not allow (one write per column type).
 */
export async function checkMisfitRefused(session: Session, written: FittingWrite, operation: Operation) {
  const [first = [], ...rest] = written.records;
  const refuse = async (records: string[][], context: string) => {
    const refused = await session.call(operation, {
      ...written.request,
      body: formatCsv(records, { lineBreak: '\r\n' }),
    });
    session.checkResponse(refused);
    session.judge(
      'negative_data_rejection',
      { operation, request: refused.request, answer: refused },
      { context },
    );
  };
  await refuse(
    [[...first, first[0] ?? ''], ...rest],
    "a record with a field more than the item's columns (x-state: {records})",
  );
  const seen = new Set<string>();
  for (const [index, column] of written.columns.entries()) {
    if (seen.has(column.type)) continue;
    seen.add(column.type);
    const misfit = wrongTypedField(session.validator, written.rule, column, session.seed + session.requests);
    if (!misfit) continue;
    const record = first.map((field, at) => (at === index ? misfit.value : field));
    await refuse(
      [record, ...rest],
      `field ${index + 1}, a ${column.type} column, holds ${preview(misfit.value)}, a ${misfit.type} value (x-state: {records})`,
    );
  }
}

/** The JSON object a call's request sent, when it sent one. */
export function sentJson(call: Pick<CallResult, 'request'>): JsonObject | undefined {
  const { body } = call.request;
  if (typeof body !== 'string' || !/json/i.test(call.request.headers['content-type'] ?? '')) return undefined;
  try {
    const value: unknown = JSON.parse(body);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * unique_conflict for one create that answered 2xx: the same request made fresh again (a new run tag in
 * its free text) but reusing its unique values must meet the documented conflict.
 */
export async function checkUniqueConflict(
  session: Session,
  created: CallResult,
  request: CallOptions,
): Promise<void> {
  const { operation } = created;
  if (!session.enabled('unique_conflict', operation.operationId)) return;
  const body = requestBodySchema(operation);
  const first = sentJson(created);
  if (!body || !first) return;
  const fields = uniqueFields(session.validator, body.schema).filter(
    (field) => typeof first[field.name] === 'string',
  );
  if (fields.length === 0) return;
  const conflict = Object.keys(operation.responses).find((status) => status === '409');
  if (!conflict) {
    session.skip('unique_conflict', operation.operationId, 'the spec documents no 409 for it');
    return;
  }
  const fresh = uniqueValue(session.validator, body.schema, first, session.uniqueTag()) as JsonObject;
  for (const variant of ['as sent', 'in another letter case'] as const) {
    const again: JsonObject = { ...fresh };
    for (const field of fields) {
      const value = String(first[field.name]);
      again[field.name] = variant === 'as sent' || !field.ignoreCase ? value : otherCase(value);
    }
    if (variant !== 'as sent' && fields.every((field) => again[field.name] === first[field.name])) continue;
    // A value the schema refuses in the other case (a lower-case pattern) would be refused for that.
    if (session.validator.validateAt(resolveSchema(session.validator, body.schema).pointer, again).length > 0)
      continue;
    const duplicate = await session.call(operation, { ...request, body: again });
    session.checkResponse(duplicate);
    const reused = fields.map((field) => `${field.name} ${JSON.stringify(again[field.name])}`).join(', ');
    if (String(duplicate.status) === conflict) session.pass('unique_conflict', operation);
    else
      session.fail(
        'unique_conflict',
        operation,
        `a second ${operation.operationId} reusing ${reused} (${variant}) answered ${duplicate.status}, not ${conflict}`,
        { request: duplicate.request, answer: duplicate },
      );
  }
}

/** The value with its letters' case swapped, for unique fields whose case the spec ignores. */
function otherCase(value: string): string {
  return [...value]
    .map((char) => (char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()))
    .join('');
}
