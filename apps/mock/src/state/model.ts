// What the mock keeps, inferred from the bundle alone (the rules are written down in the README, "Memory"):
// - a collection is a path whose GET answers a list (an array, or an object with one array property), or
//   whose `{id}` child path has a GET; its items live under that child path;
// - a collection under another's item (`/v1/groups/{id}/users`, `/wp/v2/posts/{parent}/revisions`) belongs
//   to that item: it is reached through it and goes with it;
// - a collection whose list holds ids rather than objects is a set of members: `PUT …/{userId}` adds one,
//   `DELETE` removes it, and the ids are those of the top-level collection of the same name;
// - GET on the collection lists, POST creates (a JSON object answer), GET/PUT/PATCH/POST/DELETE on the item
//   read, change and delete it; a non-JSON GET/PUT one literal segment below an item is a representation
//   of it (a dataset's CSV data); every other operation is an action, answered by Prism, whose path's ids
//   must name items the caller has;
// - what a schema cannot say is declared with `x-state` (unique fields, soft deletes, derived fields, the
//   representation's header and append mode, the page past the end, events).
import {
  isObject,
  type JsonObject,
  type Operation,
  type RecordsRule,
  recordsRuleOf,
  type SpecValidator,
} from '@platform-api/validator';
import { type SchemaAt, Schemas } from './schemas.js';

export interface Collection {
  /** The collection's path with its parameters unnamed: `/v1/users`, `/v1/groups/{}/users`. */
  key: string;
  /** Its last literal segment (`users`). */
  name: string;
  parent: Collection | undefined;
  /** The names the parent item's parameter has in this collection's paths (`channelId`, `parent`, `id`). */
  parentParameters: Set<string>;
  /** The property that identifies an item (`id`), and its schema. */
  idField: string;
  idSchema: SchemaAt | undefined;
  /** A stored item's schema: the item read's answer, else the list's items, else the create's answer. */
  itemSchema: SchemaAt | undefined;
  /** Its items are ids of another collection's items (a group's users), not objects of their own. */
  memberOf: Collection | undefined;
  members: boolean;
  /** Fields no two live items share (`x-state: {unique: true | ignore-case}`). */
  unique: Array<{ field: string; ignoreCase: boolean }>;
  /** Whether a read of a deleted item answers its deleted form (a schema marked `x-resource-deleted`). */
  keepsDeleted: boolean;
  /**
   * A signing secret the item holds (`x-state: {signingSecret: {when: <boolean field>}}`): made at create
   * when the field is true, answered by the create alone, signing the deliveries to its subscriptions.
   */
  secret?: { field: string; when: string | undefined };
  /**
   * Fields that count something of the item (`x-state: {count: …}`): the items of an array at a pointer
   * (`{items: /schema/columns}`), its members in a sub-collection (`{members: users}`), the lines of its
   * representation (`{lines: text/csv}`).
   */
  counts: Array<{ field: string; items?: string; members?: string; lines?: string }>;
}

export interface Paging {
  /** `limit`/`offset` (the platform) or `page`/`per_page` (WordPress), by parameter name. */
  style: 'offset' | 'page';
  size: string;
  defaultSize: number;
  /** The page number parameter (page style). */
  page?: string;
  /** The offset parameter (both styles; on WordPress it overrides `page`). */
  offset?: string;
  /** The documented answer for a page past the last (`x-state: {pastEnd: {status, example}}`). */
  pastEnd?: { status: number; example?: string };
  /** Documented answer headers: the total, the number of pages, RFC 8288 `Link` to the neighbours. */
  totalHeader?: string;
  pagesHeader?: string;
  linkHeader?: string;
}

export interface ListShape {
  /** The property of the answer object that holds the array (`integrations`), if the answer is not one. */
  envelope?: string;
  items: SchemaAt;
  paging: Paging | undefined;
  /** Query parameters named like a scalar field of the items: they filter (their default too). */
  filters: Array<{ name: string; defaultValue: unknown }>;
  /** `order` (asc/desc) and `orderby` (a field) parameters. */
  order?: { name: string; defaultValue: 'asc' | 'desc' };
  orderBy?: { name: string; defaultValue?: string };
}

export interface SoftDelete {
  /** The boolean query parameter that deletes for good. */
  unless: string;
  /** Fields set instead of deleting; the item is answered as it now is. */
  set?: JsonObject;
  /** The documented status of a second soft delete. */
  again?: number;
  /** Without the parameter, the delete is refused with this documented status. */
  refuse?: number;
}

export interface Representation {
  /** The media type stored and answered (`text/csv`). */
  mediaType: string;
  /** Query parameter and value that append instead of replacing (`x-state: {append: APPEND}`). */
  append?: { name: string; value: string };
  /** Query parameter that, when true, adds a header line from the item (`x-state: {header: /pointer/*`). */
  header?: { name: string; path: string };
  /** What a record written must be (`x-state: {records}` on the body's schema). */
  records?: RecordsRule;
}

export type Role =
  | { kind: 'list'; collection: Collection; list: ListShape }
  | { kind: 'create'; collection: Collection }
  | { kind: 'read'; collection: Collection }
  | { kind: 'update'; collection: Collection }
  | { kind: 'delete'; collection: Collection; softDelete?: SoftDelete }
  | { kind: 'add-member'; collection: Collection }
  | { kind: 'remove-member'; collection: Collection }
  | { kind: 'read-data'; owner: Collection; representation: Representation }
  | { kind: 'write-data'; owner: Collection; representation: Representation }
  | { kind: 'action' };

export interface OperationModel {
  operation: Operation;
  role: Role;
  /** For each path parameter in order: the collection whose item it names, or undefined (`{plugin_namespace}`). */
  positions: Array<Collection | undefined>;
  /**
   * The event a successful call sends (`x-state: {sends: MESSAGE_POSTED}`, or `{sends: {event, fill}}` where
   * `fill` maps payload pointers to request body pointers: `{/message/text: /commandLine}`).
   */
  sends?: { event: string; fill: Record<string, string> };
  /** Fields of the created item taken from the request body: item pointer → body pointer (`creates`). */
  fill?: Record<string, string>;
}

export interface StateModel {
  collections: Collection[];
  operations: Map<string, OperationModel>;
}

const PARAMETER = /^\{[^}]+\}$/;

/** Splits a template into segments, its parameters unnamed (`{}`). */
function keyOf(segments: string[]): string {
  return segments.map((segment) => (PARAMETER.test(segment) ? '{}' : segment)).join('/');
}

export function inferModel(validator: SpecValidator): StateModel {
  const schemas = new Schemas(validator);
  const operations = validator.operations.filter((operation) => operation.kind === 'path');
  const segmentsOf = (operation: Operation) => operation.path.split('/');

  // Collections: paths whose `{id}` child has a GET, and lists that something adds to (a POST on them, or
  // an operation on their `{id}` child). A list nothing adds to (a key set) is an action.
  const lists = new Set<string>();
  const grown = new Set<string>();
  const keys = new Set<string>();
  for (const operation of operations) {
    const segments = segmentsOf(operation);
    const last = segments.at(-1) ?? '';
    if (PARAMETER.test(last)) {
      grown.add(keyOf(segments.slice(0, -1)));
      if (operation.method === 'get' && jsonAnswer(schemas, operation))
        keys.add(keyOf(segments.slice(0, -1)));
    } else if (operation.method === 'post') grown.add(keyOf(segments));
    if (operation.method === 'get' && listShape(schemas, operation)) lists.add(keyOf(segments));
  }
  for (const key of lists) if (grown.has(key)) keys.add(key);
  const collections = new Map<string, Collection>();
  for (const key of [...keys].sort((a, b) => a.length - b.length)) {
    const segments = key.split('/');
    const parentAt = segments.lastIndexOf('{}');
    const parent = parentAt > 0 ? collections.get(segments.slice(0, parentAt).join('/')) : undefined;
    collections.set(key, {
      key,
      name: segments.at(-1) ?? '',
      parent,
      parentParameters: new Set(),
      idField: 'id',
      idSchema: undefined,
      itemSchema: undefined,
      memberOf: undefined,
      members: false,
      unique: [],
      keepsDeleted: false,
      counts: [],
    });
  }

  // A collection whose list holds ids (not objects) is a set of members.
  for (const operation of operations) {
    const collection = operation.method === 'get' ? collections.get(keyOf(segmentsOf(operation))) : undefined;
    const list = collection && listShape(schemas, operation);
    const itemType = list && schemas.type(list.items);
    if (collection && itemType !== undefined && itemType !== 'object') collection.members = true;
  }

  const models = new Map<string, OperationModel>();
  for (const operation of operations) {
    const segments = segmentsOf(operation);
    const positions: Array<Collection | undefined> = [];
    segments.forEach((segment, index) => {
      if (!PARAMETER.test(segment)) return;
      const collection = collections.get(keyOf(segments.slice(0, index)));
      positions.push(collection);
      // How this path names the item its sub-collection belongs to (`channelId`, `parent`).
      if (collection && index < segments.length - 1) {
        const child = collections.get(keyOf(segments.slice(0, index + 2)));
        child?.parentParameters.add(segment.slice(1, -1));
      }
    });
    const state = isObject(operation.node['x-state']) ? operation.node['x-state'] : {};
    // `x-state: {creates: {path, fill}}`: the operation creates an item of the collection at `path` (a
    // callback's message), its fields from the body as `fill` says.
    const declared = isObject(state.creates) ? state.creates : undefined;
    const createsPath = typeof declared?.path === 'string' ? declared.path : undefined;
    const creates = createsPath ? collections.get(keyOf(createsPath.split('/'))) : undefined;
    const role: Role = creates
      ? { kind: 'create', collection: creates }
      : roleOf(schemas, operation, segments, collections);
    if (creates && createsPath) {
      // Its path names the created item's parents as the collection's own path does: by parameter name.
      const named = namedPositions(createsPath.split('/'), collections);
      positions.splice(0, positions.length, ...parameterNames(segments).map((name) => named.get(name)));
    }
    const model: OperationModel = { operation, role, positions };
    if (declared) model.fill = fillOf(declared.fill);
    const sends = sendsOf(state.sends);
    if (sends) model.sends = sends;
    models.set(operation.operationId, model);
  }

  for (const collection of collections.values()) describeItems(schemas, collection, models, collections);
  return { collections: [...collections.values()], operations: models };
}

function roleOf(
  schemas: Schemas,
  operation: Operation,
  segments: string[],
  collections: Map<string, Collection>,
): Role {
  const last = segments.at(-1) ?? '';
  const method = operation.method;
  if (PARAMETER.test(last)) {
    const collection = collections.get(keyOf(segments.slice(0, -1)));
    if (!collection) return { kind: 'action' };
    if (collection.members) {
      if (method === 'put') return { kind: 'add-member', collection };
      if (method === 'delete') return { kind: 'remove-member', collection };
      return { kind: 'action' };
    }
    if (method === 'get') return { kind: 'read', collection };
    if (method === 'delete') {
      const softDelete = softDeleteOf(operation);
      return softDelete ? { kind: 'delete', collection, softDelete } : { kind: 'delete', collection };
    }
    if (['put', 'patch', 'post'].includes(method) && jsonRequest(operation))
      return { kind: 'update', collection };
    return { kind: 'action' };
  }
  const collection = collections.get(keyOf(segments));
  if (collection) {
    const list = method === 'get' ? listShape(schemas, operation) : undefined;
    if (list) return { kind: 'list', collection, list };
    if (method === 'post' && jsonObjectAnswer(schemas, operation)) return { kind: 'create', collection };
    return { kind: 'action' };
  }
  const owner = collections.get(keyOf(segments.slice(0, -2)));
  if (owner && PARAMETER.test(segments.at(-2) ?? '')) {
    const representation = representationOf(schemas, operation);
    if (representation && method === 'get') return { kind: 'read-data', owner, representation };
    if (representation && (method === 'put' || method === 'post'))
      return { kind: 'write-data', owner, representation };
  }
  return { kind: 'action' };
}

/** The JSON schema of an operation's success answer, if it has one. */
function jsonAnswer(schemas: Schemas, operation: Operation): SchemaAt | undefined {
  const status = operation.successStatus;
  const response = status === undefined ? undefined : operation.responses[String(status)];
  const content = isObject(response?.content) ? response.content : undefined;
  const mediaType = content && Object.keys(content).find((type) => /json/i.test(type));
  if (!content || !mediaType) return undefined;
  const media = content[mediaType];
  if (!isObject(media) || media.schema === undefined) return undefined;
  return schemas.resolve(
    media.schema,
    `${operation.pointer}/responses/${status}/content/${mediaType.replace(/~/g, '~0').replace(/\//g, '~1')}/schema`,
  );
}

function jsonObjectAnswer(schemas: Schemas, operation: Operation): SchemaAt | undefined {
  const answer = jsonAnswer(schemas, operation);
  if (!answer) return undefined;
  const type = schemas.type(answer);
  return type === 'object' || schemas.properties(answer).size > 0 || schemas.branches(answer).length > 0
    ? answer
    : undefined;
}

function jsonRequest(operation: Operation): boolean {
  return Object.keys(operation.requestBody?.content ?? {}).some((type) => /json/i.test(type));
}

/** How a GET answers a list: an array, or an object whose one array property holds it. */
export function listShape(schemas: Schemas, operation: Operation): ListShape | undefined {
  const answer = jsonAnswer(schemas, operation);
  if (!answer || typeof answer.node === 'boolean') return undefined;
  let envelope: string | undefined;
  let array: SchemaAt | undefined;
  if (schemas.type(answer) === 'array') array = answer;
  else {
    const arrays = [...schemas.properties(answer)].filter(
      ([, list]) => list[0] && schemas.type(list[0]) === 'array',
    );
    if (arrays.length !== 1 || schemas.properties(answer).size !== 1) return undefined;
    const [name, list] = arrays[0] as [string, SchemaAt[]];
    envelope = name;
    array = list[0];
  }
  if (!array) return undefined;
  const items = schemas.keyword(array, 'items');
  if (items === undefined) return undefined;
  const itemPointer = `${layerWith(schemas, array, 'items')}/items`;
  const shape: ListShape = {
    items: schemas.resolve(items, itemPointer),
    paging: pagingOf(schemas, operation),
    filters: [],
  };
  if (envelope !== undefined) shape.envelope = envelope;
  const itemProperties = schemas.properties(shape.items);
  for (const { node: parameter, pointer } of operation.parameters) {
    if (parameter.in !== 'query') continue;
    const schema = schemas.resolve(parameter.schema ?? {}, `${pointer}/schema`);
    const enumValues = schemas.keyword(schema, 'enum');
    if (Array.isArray(enumValues) && enumValues.includes('asc') && enumValues.includes('desc')) {
      shape.order = {
        name: parameter.name,
        defaultValue: schemas.keyword(schema, 'default') === 'asc' ? 'asc' : 'desc',
      };
      continue;
    }
    if (parameter.name === 'orderby') {
      const value = schemas.keyword(schema, 'default');
      shape.orderBy =
        typeof value === 'string' ? { name: parameter.name, defaultValue: value } : { name: parameter.name };
      continue;
    }
    const field = itemProperties.get(parameter.name)?.[0];
    const fieldType = field && schemas.type(field);
    if (fieldType && fieldType !== 'object' && fieldType !== 'array')
      shape.filters.push({ name: parameter.name, defaultValue: schemas.keyword(schema, 'default') });
  }
  return shape;
}

/** The pointer of the `allOf` layer that carries a keyword. */
function layerWith(schemas: Schemas, schema: SchemaAt, keyword: string): string {
  for (const layer of schemas.layers(schema)) {
    if (typeof layer.node !== 'boolean' && layer.node[keyword] !== undefined) return layer.pointer;
  }
  return schema.pointer;
}

function pagingOf(schemas: Schemas, operation: Operation): Paging | undefined {
  const query = new Map(
    operation.parameters
      .filter((parameter) => parameter.node.in === 'query')
      .map((parameter) => [parameter.node.name, parameter] as const),
  );
  const sizeOf = (name: string) => {
    const parameter = query.get(name);
    const schema = parameter && schemas.resolve(parameter.node.schema ?? {}, `${parameter.pointer}/schema`);
    const value = schema && schemas.keyword(schema, 'default');
    return typeof value === 'number' ? value : 10;
  };
  let paging: Paging | undefined;
  if (query.has('limit')) paging = { style: 'offset', size: 'limit', defaultSize: sizeOf('limit') };
  else if (query.has('per_page'))
    paging = { style: 'page', size: 'per_page', defaultSize: sizeOf('per_page') };
  if (!paging) return undefined;
  if (query.has('offset')) paging.offset = 'offset';
  const page = query.get('page');
  if (paging.style === 'page' && page) {
    paging.page = 'page';
    const state = isObject(page.node['x-state']) ? page.node['x-state'] : {};
    if (isObject(state.pastEnd) && typeof state.pastEnd.status === 'number') {
      paging.pastEnd = { status: state.pastEnd.status };
      if (typeof state.pastEnd.example === 'string') paging.pastEnd.example = state.pastEnd.example;
    }
  }
  const ok =
    operation.successStatus === undefined ? undefined : operation.responses[String(operation.successStatus)];
  for (const name of Object.keys(isObject(ok?.headers) ? ok.headers : {})) {
    const lower = name.toLowerCase();
    if (lower === 'link') paging.linkHeader = name;
    else if (lower.endsWith('totalpages') || lower.endsWith('total-pages')) paging.pagesHeader = name;
    else if (lower.endsWith('total') || lower.endsWith('total-count')) paging.totalHeader = name;
  }
  return paging;
}

function parameterNames(segments: string[]): string[] {
  return segments.filter((segment) => PARAMETER.test(segment)).map((segment) => segment.slice(1, -1));
}

/** The collection each parameter of a template names an item of, by the parameter's name. */
function namedPositions(
  segments: string[],
  collections: Map<string, Collection>,
): Map<string, Collection | undefined> {
  const named = new Map<string, Collection | undefined>();
  segments.forEach((segment, index) => {
    if (PARAMETER.test(segment))
      named.set(segment.slice(1, -1), collections.get(keyOf(segments.slice(0, index))));
  });
  return named;
}

function sendsOf(value: unknown): OperationModel['sends'] {
  if (typeof value === 'string') return { event: value, fill: {} };
  if (!isObject(value) || typeof value.event !== 'string') return undefined;
  return { event: value.event, fill: fillOf(value.fill) };
}

/** `{/message/text: /commandLine}`: target pointers and the request body pointers they take values from. */
function fillOf(value: unknown): Record<string, string> {
  return isObject(value)
    ? Object.fromEntries(Object.entries(value).map(([to, from]) => [to, String(from)]))
    : {};
}

/** A DELETE's boolean query parameter marked `x-state: {softDelete}`: without it true, the delete is soft. */
function softDeleteOf(operation: Operation): SoftDelete | undefined {
  for (const { node: parameter } of operation.parameters) {
    const state = isObject(parameter['x-state']) ? parameter['x-state'] : {};
    const soft = state.softDelete;
    if (parameter.in !== 'query' || !isObject(soft)) continue;
    const softDelete: SoftDelete = { unless: parameter.name };
    if (isObject(soft.set)) softDelete.set = soft.set;
    if (typeof soft.again === 'number') softDelete.again = soft.again;
    if (typeof soft.refuse === 'number') softDelete.refuse = soft.refuse;
    return softDelete;
  }
  return undefined;
}

/** A non-JSON body read (GET) or written (PUT/POST) whole, with its `x-state` parameters and records. */
function representationOf(schemas: Schemas, operation: Operation): Representation | undefined {
  const ok =
    operation.successStatus === undefined ? undefined : operation.responses[String(operation.successStatus)];
  const media = Object.keys(
    operation.method === 'get'
      ? isObject(ok?.content)
        ? ok.content
        : {}
      : (operation.requestBody?.content ?? {}),
  );
  const mediaType = media.find((type) => !/json/i.test(type));
  if (!mediaType || media.some((type) => /json/i.test(type))) return undefined;
  const representation: Representation = { mediaType };
  for (const { node: parameter } of operation.parameters) {
    const state = isObject(parameter['x-state']) ? parameter['x-state'] : {};
    if (typeof state.append === 'string')
      representation.append = { name: parameter.name, value: state.append };
    if (typeof state.header === 'string')
      representation.header = { name: parameter.name, path: state.header };
  }
  const body = operation.requestBody;
  const schema = body?.content[mediaType]?.schema;
  if (body && schema !== undefined) {
    const pointer = `${body.pointer}/content/${mediaType.replace(/\//g, '~1')}/schema`;
    const records = recordsRuleOf(schemas.resolve(schema, pointer));
    if (records) representation.records = records;
  }
  return representation;
}

/** Item schema, id field and schema, unique fields and deleted form of a collection, from its operations. */
function describeItems(
  schemas: Schemas,
  collection: Collection,
  models: Map<string, OperationModel>,
  collections: Map<string, Collection>,
): void {
  const roles = [...models.values()].filter(
    (model) => 'collection' in model.role && model.role.collection === collection,
  );
  const read = roles.find((model) => model.role.kind === 'read');
  const list = roles.find((model) => model.role.kind === 'list');
  const create = roles.find((model) => model.role.kind === 'create');
  collection.itemSchema =
    (read && jsonAnswer(schemas, read.operation)) ??
    (list?.role.kind === 'list' ? list.role.list.items : undefined) ??
    (create && jsonAnswer(schemas, create.operation));
  if (collection.members) {
    collection.memberOf = [...collections.values()].find(
      (candidate) => candidate.parent === undefined && candidate.name === collection.name,
    );
    return;
  }
  // The field the create answer's links take the new item's id from (`$response.body#/id`).
  const links = create && linksOf(create.operation);
  for (const raw of Object.values(links ?? {})) {
    const link = schemas.validator.resolve<unknown>({ node: raw, pointer: '' }).node;
    const parameters = isObject(link) && isObject(link.parameters) ? link.parameters : {};
    for (const expression of Object.values(parameters)) {
      const field = /^\$response\.body#\/([^/]+)$/.exec(String(expression))?.[1];
      if (field) collection.idField = field;
    }
  }
  const item = collection.itemSchema;
  if (item) {
    // A field declared as what the item's path parameter names (`x-state: {key: true}`) wins.
    for (const [name, list] of schemas.properties(item))
      if (list.some((property) => schemas.state(property).key === true)) collection.idField = name;
    collection.idSchema = schemas.property(item, collection.idField);
    collection.keepsDeleted = schemas.branches(item).some((branch) => schemas.isDeletedForm(branch));
    const live = collection.keepsDeleted
      ? (schemas.branches(item).find((branch) => !schemas.isDeletedForm(branch)) ?? item)
      : item;
    for (const [name, [property]] of schemas.properties(live)) {
      const state = property ? schemas.state(property) : {};
      const secret = state.signingSecret;
      if (secret !== undefined)
        collection.secret = {
          field: name,
          when: isObject(secret) && typeof secret.when === 'string' ? secret.when : undefined,
        };
      if (isObject(state.count)) {
        const { items, members, lines } = state.count;
        collection.counts.push({
          field: name,
          ...(typeof items === 'string' ? { items } : {}),
          ...(typeof members === 'string' ? { members } : {}),
          ...(typeof lines === 'string' ? { lines } : {}),
        });
      }
    }
  }
  // Unique fields: marked on the item's schema or on the create and update requests'.
  const unique = new Map<string, boolean>();
  const marked = (schema: SchemaAt | undefined) => {
    if (!schema) return;
    for (const layer of [schema, ...schemas.branches(schema)]) {
      for (const [name, list] of schemas.properties(layer)) {
        for (const property of list) {
          const value = schemas.state(property).unique;
          if (value === true || value === 'ignore-case') unique.set(name, value === 'ignore-case');
        }
      }
    }
  };
  marked(item);
  for (const model of roles) {
    if (model.role.kind !== 'create' && model.role.kind !== 'update') continue;
    const body = model.operation.requestBody;
    const mediaType = Object.keys(body?.content ?? {}).find((type) => /json/i.test(type));
    const schema = mediaType && body?.content[mediaType]?.schema;
    if (body && mediaType && schema !== undefined)
      marked(schemas.resolve(schema, `${body.pointer}/content/${mediaType.replace(/\//g, '~1')}/schema`));
  }
  collection.unique = [...unique].map(([field, ignoreCase]) => ({ field, ignoreCase }));
}

function linksOf(operation: Operation): JsonObject | undefined {
  const status = operation.successStatus;
  const response = status === undefined ? undefined : operation.responses[String(status)];
  return isObject(response?.links) ? response.links : undefined;
}
