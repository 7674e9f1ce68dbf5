import { randomUUID } from 'node:crypto';
import { CsvSyntaxError, formatCsv, parseCsv } from '@platform-api/csv';
import { joinPointer, type Operation, recordsRuleOf, resolveLocal, SPEC_ID } from '@platform-api/validator';
import type { ValidateFunction } from 'ajv';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { Schemas } from '../api-types.js';
import type { Database, DatasetsTable } from '../db/schema.js';
import { ApiProblem, badRequest, type FieldProblem, fieldPath } from '../errors.js';
import { compact, iso, locationOf, paged, toBoolean } from './common.js';
import { getRecord, liveRecordOr404, newRecordTimes } from './records.js';
import { type HandlerContext, type HandlerMap, requireAuth } from './types.js';

type DatasetRow = Selectable<DatasetsTable>;
type DatasetColumn = Schemas['DatasetColumn'];

const columnsOf = (row: DatasetRow): DatasetColumn[] =>
  (JSON.parse(row.schema_json) as { columns: DatasetColumn[] }).columns;

async function ownerOf(db: Kysely<Database>, ownerId: number | null) {
  if (ownerId === null) return undefined;
  const owner = await db
    .selectFrom('users')
    .select(['id', 'name'])
    .where('id', '=', ownerId)
    .executeTakeFirst();
  return owner ? { id: owner.id, name: owner.name } : undefined;
}

async function datasetBody(db: Kysely<Database>, row: DatasetRow): Promise<Schemas['Dataset']> {
  const schema = JSON.parse(row.schema_json) as { columns: DatasetColumn[] };
  return compact({
    id: row.id,
    name: row.name,
    description: row.description,
    rows: row.row_count,
    columns: schema.columns.length,
    schema,
    owner: await ownerOf(db, row.owner_id),
    pdpEnabled: row.pdp_enabled === 1,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  });
}

async function findDataset(db: Kysely<Database>, instanceId: number, id: string, options: { live: boolean }) {
  let query = db
    .selectFrom('datasets')
    .selectAll()
    .where('id', '=', id)
    .where('instance_id', '=', instanceId);
  if (options.live) query = query.where('deleted_at', 'is', null);
  return query.executeTakeFirst();
}

interface Sort {
  column: 'name' | 'updated_at' | 'created_at' | 'id' | 'touched';
  desc: boolean;
}

/** The order when the query names none, and of the orders whose data the server does not keep. */
const BY_NAME: Sort = { column: 'name', desc: false };

/** Sort orders of listDatasets → column and direction. Card and error-state orders have no data here: by name. */
const SORTS: Record<string, Sort> = {
  name: BY_NAME,
  nameDescending: { column: 'name', desc: true },
  lastTouched: { column: 'touched', desc: true },
  lastTouchedAscending: { column: 'touched', desc: false },
  lastUpdated: { column: 'updated_at', desc: true },
  lastUpdatedAscending: { column: 'updated_at', desc: false },
  createdAt: { column: 'created_at', desc: true },
  createdAtAscending: { column: 'created_at', desc: false },
  cardCount: BY_NAME,
  cardCountAscending: BY_NAME,
  cardViewCount: BY_NAME,
  cardViewCountAscending: BY_NAME,
  errorState: BY_NAME,
  errorStateDescending: { column: 'name', desc: true },
  dataSourceId: { column: 'id', desc: false },
};

/** Each column type's check of a field: the import body's `x-state: {records}` compiled, once per operation. */
const fieldChecksOf = new WeakMap<Operation, Map<string, ValidateFunction>>();

function fieldChecks(ctx: HandlerContext): Map<string, ValidateFunction> {
  const { operation, services } = ctx;
  let checks = fieldChecksOf.get(operation);
  if (!checks) {
    checks = new Map();
    for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {})) {
      if (media.schema === undefined) continue;
      const pointer = joinPointer(operation.requestBody?.pointer ?? '', 'content', mediaType, 'schema');
      const rule = recordsRuleOf(resolveLocal(services.doc as never, { node: media.schema, pointer }));
      for (const [type, field] of rule?.fields ?? [])
        checks.set(type, services.schemas.compile({ $ref: `${SPEC_ID}${field.pointer}` }));
    }
    fieldChecksOf.set(operation, checks);
  }
  return checks;
}

/** Parses and checks an import against the dataset's schema; a first line equal to the column names is a header. */
function parseImport(
  text: string,
  columns: DatasetColumn[],
  checks: Map<string, ValidateFunction>,
): string[][] {
  let records: string[][];
  try {
    records = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvSyntaxError) {
      throw badRequest('The CSV body is malformed', [
        { field: `body.line ${error.line}`, message: error.message },
      ]);
    }
    throw error;
  }
  const names = columns.map((c) => c.name.toLowerCase());
  if (
    records[0] &&
    records[0].length === names.length &&
    records[0].every((v, i) => v.trim().toLowerCase() === names[i])
  ) {
    records = records.slice(1);
  }
  const problems: FieldProblem[] = [];
  records.forEach((record, index) => {
    if (problems.length >= 20) return;
    const rowLabel = `body.row ${index + 1}`;
    if (record.length !== columns.length) {
      problems.push({
        field: rowLabel,
        message: `has ${record.length} fields; the dataset has ${columns.length} columns`,
      });
      return;
    }
    columns.forEach((column, i) => {
      // As many fields as columns (checked above).
      const value = record[i] ?? '';
      // An empty field is no value, in a column of any type.
      const check = checks.get(column.type);
      if (value !== '' && check && !check(value)) {
        // A column's name is the client's text: written as every field key is (control characters escaped).
        problems.push({
          field: fieldPath('body', [`row ${index + 1}`, column.name]),
          message: `is not a ${column.type} value: ${check.errors?.[0]?.message ?? 'it is invalid'}`,
        });
      }
    });
  });
  // Well-formed CSV that does not fit the dataset's current columns conflicts with its state: 409.
  if (problems.length > 0)
    throw new ApiProblem(409, 'The CSV does not match the dataset schema', { details: problems });
  return records;
}

export const datasetHandlers = {
  async listDatasets(ctx) {
    const auth = requireAuth(ctx);
    const { db } = ctx.services;
    const sort = SORTS[ctx.query.sort as string] ?? BY_NAME;
    let query = db
      .selectFrom('datasets')
      .selectAll()
      .where('instance_id', '=', auth.instanceId)
      .where('deleted_at', 'is', null);
    const nameLike = (ctx.query.nameLike as string | undefined) ?? '';
    if (nameLike !== '') {
      const pattern = `%${nameLike.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`);
    }
    const direction = sort.desc ? 'desc' : 'asc';
    // Names sort case-insensitively on both databases (collations differ), then by exact name.
    if (sort.column === 'touched')
      query = query.orderBy(sql`coalesce(data_updated_at, updated_at)`, direction);
    else if (sort.column === 'name')
      query = query.orderBy(sql`lower(name)`, direction).orderBy('name', direction);
    else query = query.orderBy(sort.column, direction);
    const rows = await paged(query.orderBy('id'), ctx.query).execute();
    const body: Schemas['DatasetSummary'][] = [];
    for (const row of rows) {
      body.push(
        compact({
          id: row.id,
          name: row.name,
          rows: row.row_count,
          columns: columnsOf(row).length,
          owner: await ownerOf(db, row.owner_id),
          createdAt: iso(row.created_at),
          updatedAt: iso(row.updated_at),
        }),
      );
    }
    return { body };
  },

  async createDataset(ctx) {
    const auth = requireAuth(ctx);
    const { db, clock } = ctx.services;
    const now = clock.now();
    const row = await db
      .insertInto('datasets')
      .values({
        id: randomUUID(),
        instance_id: auth.instanceId,
        owner_id: auth.userId,
        name: ctx.body.name,
        description: typeof ctx.body.description === 'string' ? ctx.body.description : null,
        schema_json: JSON.stringify({ columns: ctx.body.schema.columns }),
        // Rows are counted from imported data; a new dataset has none.
        row_count: 0,
        pdp_enabled: 0,
        csv_data: null,
        data_updated_at: null,
        ...newRecordTimes(now),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { body: await datasetBody(db, row), headers: locationOf(`/v1/datasets/${row.id}`) };
  },

  getDataset: getRecord('dataset', findDataset, datasetBody),

  async updateDataset(ctx) {
    const { db, clock } = ctx.services;
    const row = await liveRecordOr404(ctx, 'dataset', findDataset);
    const changes: Partial<DatasetRow> = {};
    if (ctx.body.name !== undefined) changes.name = ctx.body.name;
    if (ctx.body.description !== undefined) changes.description = ctx.body.description;
    if (ctx.body.schema !== undefined) {
      const columns = ctx.body.schema.columns as DatasetColumn[];
      // Stored rows must keep matching the schema: a schema with another column count drops them.
      if (row.csv_data !== null && columns.length !== columnsOf(row).length) {
        changes.csv_data = null;
        changes.row_count = 0;
      }
      changes.schema_json = JSON.stringify({ columns });
    }
    const updated = await db
      .updateTable('datasets')
      .set({ ...changes, updated_at: clock.now() })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { body: await datasetBody(db, updated) };
  },

  async deleteDataset(ctx) {
    const { db, clock } = ctx.services;
    const row = await liveRecordOr404(ctx, 'dataset', findDataset);
    await db
      .updateTable('datasets')
      .set({ deleted_at: clock.now(), csv_data: null })
      .where('id', '=', row.id)
      .execute();
    return {};
  },

  async importDatasetData(ctx) {
    const { db, clock } = ctx.services;
    const row = await liveRecordOr404(ctx, 'dataset', findDataset);
    if (typeof ctx.body !== 'string') throw new ApiProblem(415, 'Content-Type must be text/csv');
    const records = parseImport(ctx.body, columnsOf(row), fieldChecks(ctx));
    const csv = formatCsv(records);
    const now = clock.now();
    // APPEND in one statement, so that concurrent appends each keep their rows.
    await db
      .updateTable('datasets')
      .set((eb) =>
        ctx.query.updateMethod === 'APPEND'
          ? {
              csv_data: sql<string>`coalesce(${eb.ref('csv_data')}, '') || ${csv}`,
              row_count: eb('row_count', '+', records.length),
              data_updated_at: now,
              updated_at: now,
            }
          : { csv_data: csv, row_count: records.length, data_updated_at: now, updated_at: now },
      )
      .where('id', '=', row.id)
      .execute();
    return {};
  },

  async exportDatasetData(ctx) {
    const row = await liveRecordOr404(ctx, 'dataset', findDataset);
    const header = toBoolean(ctx.query.includeHeader) ? formatCsv([columnsOf(row).map((c) => c.name)]) : '';
    return { body: header + (row.csv_data ?? '') };
  },
} satisfies Partial<HandlerMap>;
