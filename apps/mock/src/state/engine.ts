// The mock's memory at work: each request of an operation the model knows is answered from the caller's
// state. Prism stays the judge of requests and the source of example shapes:
// - a write (create, update, delete, members, a representation) and an action go to Prism first; its
//   documented error is the answer when it refuses the request, and when it accepts, the state changes and
//   the answer is built from the state (Prism's body lending only the example values nothing else gives);
// - a read (an item, a list) whose parameters the one validator (Ajv, on the bundle) accepts is answered
//   from the state without Prism; one with parameters it cannot read alone (arrays, `oneOf`s) or refuses
//   goes to Prism first, as a write does;
// - an error the state decides (no such item: 404; a unique value taken: 409; a token without the scope:
//   403; a page past the end) is Prism's documented answer for that status (`Prefer: code=…`).
import type { IncomingHttpHeaders } from 'node:http';
import { CsvSyntaxError, formatCsv, parseCsv } from '@platform-api/csv';
import {
  createSpecAjv,
  getByPointer,
  isObject,
  type JsonObject,
  type Operation,
  type RecordsRule,
  rebaseRefs,
  type SpecValidator,
  templateToRegExp,
} from '@platform-api/validator';
import { generateSecret } from '../signing.js';
import { type Credential, Credentials } from './auth.js';
import { Deliveries } from './deliveries.js';
import { Items } from './items.js';
import { pageOf } from './lists.js';
import { type Collection, inferModel, type OperationModel, type StateModel } from './model.js';
import { pick, setAt } from './pointers.js';
import { type ProjectionContext, type SchemaAt, Schemas } from './schemas.js';
import { plant, seedsOf } from './seeds.js';
import { type BucketAddress, Store, type StoredItem, type StoreOptions, type Tenant } from './store.js';
import { Values } from './values.js';

/** An answer as the front writes it: status, raw header pairs, body. */
export interface Answer {
  status: number;
  rawHeaders: string[];
  body: Buffer;
}

/** Asks Prism for its answer to the request (as received), optionally for a documented status or example. */
export type AskPrism = (prefer?: string) => Promise<Answer>;

export interface StateRequest {
  /** `GET` for a `HEAD` (the front drops the body). */
  method: string;
  pathname: string;
  /** The query as the caller sent it (without `?`; Prism may get it rewritten, query.ts). */
  search: string;
  headers: IncomingHttpHeaders;
  body: Buffer | undefined;
  /** Where the API's paths start as the caller sees it (`http://127.0.0.1:4011/wp-json`): for `Location`, `Link`. */
  base: string;
}

export interface EngineOptions extends StoreOptions {
  /** Lines about what the mock did on its own (the events it delivered). */
  log?: (line: string) => void;
  /** A CA certificate (PEM) the event deliveries trust besides the system's (a receiver's own). */
  webhookCa?: string;
}

/** One authenticated call the engine answers: its route, request, tenant and the ids of its path. */
interface Call {
  route: Route;
  request: StateRequest;
  prism: AskPrism;
  tenantName: string;
  tenant: Tenant;
  ids: string[];
  /** The last id of the path: the item an item operation is about. */
  key: string;
}

/** The parents a path names, checked: the bucket of the operation's items, and the items on the way. */
interface Parents {
  found: boolean;
  address: BucketAddress;
  chain: Array<{ collection: Collection; key: string; value: JsonObject }>;
  /** The innermost parent item. */
  owner?: StoredItem;
}

interface Route {
  model: OperationModel;
  pattern: RegExp;
  /** Path and query parameters, compiled (strings coerced), when a read can be answered without Prism. */
  parameters: ((values: unknown) => boolean) | undefined;
  /** Query parameters whose values only Prism reads (arrays, objects, `oneOf`s). */
  complex: Set<string>;
  /** What its security takes, read once: a callback token's header, no credentials at all. */
  keyHeader: string | undefined;
  open: boolean;
  /** The scopes it needs, per alternative of its security. */
  scopes: string[][];
}

const JSON_TYPE = 'application/json';

export class StateEngine {
  readonly model: StateModel;
  readonly credentials: Credentials;
  readonly store: Store;
  private readonly schemas: Schemas;
  private readonly items: Items;
  private readonly values: Values;
  private readonly byOperation = new Map<string, Route>();
  /** Events the writes send (an API with webhooks and a callback operation). */
  private readonly deliveries: Deliveries | undefined;
  private readonly answerSchemas = new Map<string, SchemaAt | undefined>();
  /** Each collection's first example item: it lends example values to what a create leaves out. */
  private readonly examples = new Map<string, JsonObject>();

  constructor(
    readonly validator: SpecValidator,
    options: EngineOptions = {},
  ) {
    this.schemas = new Schemas(validator);
    this.values = new Values(this.schemas);
    this.items = new Items(this.schemas, this.values);
    this.model = inferModel(validator);
    this.credentials = new Credentials(validator);
    this.deliveries = Deliveries.of(this.model, this.schemas, options.log ?? (() => {}), options.webhookCa);
    const seeds = seedsOf(this.model, this.schemas);
    for (const seed of seeds) {
      this.values.reserve(Number(seed.key));
      if (isObject(seed.value) && !this.examples.has(seed.address.collection))
        this.examples.set(seed.address.collection, seed.value);
    }
    this.store = new Store((tenant) => plant(tenant, seeds), options);
    const coercing = createSpecAjv(validator.document, { coerce: true });
    for (const model of this.model.operations.values()) {
      const route: Route = {
        model,
        pattern: capturing(model.operation.path),
        parameters: undefined,
        complex: complexParameters(this.schemas, model.operation),
        keyHeader: this.credentials.keyHeader(model.operation),
        open: this.credentials.isPublic(model.operation),
        scopes: this.credentials.requiredScopes(model.operation),
      };
      if (model.role.kind === 'read' || model.role.kind === 'list')
        route.parameters = coercing.compile(parametersSchema(model.operation));
      this.byOperation.set(model.operation.operationId, route);
    }
  }

  /** How the engine answers an operation of the bundle (the front finds the request's operation). */
  route(operation: Operation | undefined): Route | undefined {
    return operation && this.byOperation.get(operation.operationId);
  }

  /** Empties a tenant's state (its next request starts from the examples again). */
  reset(tenant: string): void {
    this.store.reset(tenant);
  }

  /** The tenant of a request's credentials (`anonymous` without any), or undefined when they are refused. */
  tenantOf(headers: IncomingHttpHeaders): string | undefined {
    const credential = this.credentials.resolve(headers.authorization);
    if (credential.kind === 'refused') return undefined;
    return credential.kind === 'tenant' ? credential.tenant : 'anonymous';
  }

  async handle(route: Route, request: StateRequest, prism: AskPrism): Promise<Answer> {
    const { operation } = route.model;
    if (this.credentials.isTokenOperation(operation)) return this.token(operation, request, prism);
    const tenantName = this.authenticate(route, request);
    if (typeof tenantName !== 'string') return prism(tenantName.prefer);
    const tenant = this.store.tenant(tenantName);
    const ids = (route.pattern.exec(request.pathname)?.slice(1) ?? []).map(decodePath);
    const call: Call = { route, request, prism, tenantName, tenant, ids, key: ids.at(-1) ?? '' };
    const { answer, created } = await this.answer(call);
    if (isSuccess(answer.status) && !['read', 'list', 'read-data', 'action'].includes(route.model.role.kind))
      this.recount(call, created);
    const sends = route.model.sends;
    if (sends && isSuccess(answer.status) && this.deliveries) {
      const parents = this.parentsOf(route.model, ids, tenant).chain;
      const createdIn = 'collection' in route.model.role ? route.model.role.collection : undefined;
      this.deliveries.send({
        ...sends,
        tenantName,
        tenant,
        base: request.base,
        ...(created && createdIn ? { created: { collection: createdIn, value: created } } : {}),
        parents,
        body: parseJson(request.body),
      });
    }
    return answer;
  }

  /**
   * The tenant of the request's credentials, or what Prism is to be asked instead: its 401 (none, or a
   * refused one), its 403 (a token without the operation's scope).
   */
  private authenticate(route: Route, request: StateRequest): string | { prefer: string | undefined } {
    const { operation } = route.model;
    const keyHeader = route.keyHeader;
    if (keyHeader && this.deliveries?.tokenHeader === keyHeader) {
      // A callback token: the tenant it was issued to, for the channel its path names.
      const token = request.headers[keyHeader];
      if (typeof token !== 'string') return { prefer: undefined };
      const channel = decodePath(route.pattern.exec(request.pathname)?.[1] ?? '');
      return this.deliveries.callbackTenant(token, channel) ?? { prefer: 'code=401' };
    }
    const credential = this.credentials.resolve(request.headers.authorization);
    const open = route.open;
    if (credential.kind === 'refused' && !(open && credential.scheme === 'basic'))
      return {
        prefer:
          credential.scheme === 'bearer' ? this.preferError(operation, 401, 'invalid_token') : 'code=401',
      };
    if (credential.kind !== 'tenant') return open ? 'anonymous' : { prefer: undefined };
    if (!this.hasScope(route, credential))
      return { prefer: this.preferError(operation, 403, 'insufficient_scope') };
    return credential.tenant;
  }

  /** The answer to an authenticated call, and the item it created, if any. */
  private async answer(call: Call): Promise<{ answer: Answer; created?: JsonObject }> {
    const { route, request, prism, tenant, ids } = call;
    const role = route.model.role;
    // Every id of the path that names an item (a parent, the item itself) must be one the caller has.
    const reads = role.kind === 'read' || role.kind === 'list';
    if (reads && !this.readsWithoutPrism(route, ids, request.search)) {
      const judged = await prism();
      if (!isSuccess(judged.status)) return { answer: judged };
    }
    const parents = this.parentsOf(route.model, ids, tenant);
    // A write: Prism judges the request first, then the state answers.
    const judged = reads ? undefined : await prism();
    if (judged && !isSuccess(judged.status)) return { answer: judged };
    if (!parents.found) return { answer: await prism('code=404') };
    const address = parents.address;
    switch (role.kind) {
      case 'read':
        return { answer: await this.read(call, role.collection, address) };
      case 'list':
        return { answer: await this.list(call, address) };
      case 'action':
        return { answer: judged as Answer };
      case 'create':
        return this.create(call, role.collection, address, judged as Answer);
      case 'update':
        return { answer: await this.update(call, role.collection, address, judged as Answer) };
      case 'delete':
        return { answer: await this.remove(call, role, address, judged as Answer) };
      case 'add-member':
        return { answer: await this.addMember(call, role.collection, address, judged as Answer) };
      case 'remove-member': {
        if (!tenant.get(address, call.key)) return { answer: await prism('code=404') };
        tenant.remove(address, call.key);
        return { answer: judged as Answer };
      }
      case 'write-data':
        return { answer: await this.writeData(call, role, parents.owner, judged as Answer) };
      case 'read-data':
        return { answer: this.readData(call, role, parents.owner, judged as Answer) };
    }
  }

  /**
   * After a write, the counts (`x-state: {count}`) of the item it made or changed and of the item it is
   * under (a group whose members changed, a dataset whose rows did).
   */
  private recount(call: Call, created: JsonObject | undefined): void {
    const { route, tenant, ids } = call;
    const role = route.model.role;
    const parents = this.parentsOf(route.model, ids, tenant);
    const own = 'collection' in role ? role.collection : undefined;
    const ownKey =
      created && own
        ? String(created[own.idField])
        : ['update', 'delete'].includes(role.kind)
          ? call.key
          : undefined;
    if (own && ownKey !== undefined) this.count(tenant, own, parents.address.parents, ownKey);
    const owner = parents.chain.at(-1);
    if (owner) this.count(tenant, owner.collection, parents.address.parents.slice(0, -1), owner.key);
  }

  private count(tenant: Tenant, collection: Collection, parents: readonly string[], key: string): void {
    if (collection.counts.length === 0) return;
    const item = tenant.get({ collection: collection.key, parents }, key);
    if (!item) return;
    for (const { field, items, members, lines } of collection.counts) {
      const value = item.value;
      if (!isObject(value)) return;
      let count: number | undefined;
      if (items !== undefined) count = pick(value, items).flat().length;
      else if (members !== undefined) {
        const child = this.model.collections.find(
          (candidate) => candidate.parent === collection && candidate.name === members,
        );
        if (child) count = tenant.bucket({ collection: child.key, parents: [...parents, key] }).size;
      } else if (lines !== undefined)
        count = (item.data?.get(lines) ?? '').split('\n').filter((line) => line.trim() !== '').length;
      if (count !== undefined && value[field] !== count) {
        item.value = { ...value, [field]: count };
        tenant.changed(item);
      }
    }
  }

  private hasScope(route: Route, credential: Extract<Credential, { kind: 'tenant' }>): boolean {
    const granted = credential.scopes;
    if (route.scopes.length === 0 || !granted) return true;
    return route.scopes.some((scopes) => scopes.every((scope) => granted.has(scope)));
  }

  /**
   * The bucket the operation's item lives in, after checking that each parent item the path names is one
   * the tenant has (alive): `found` is false when one is not. `chain` holds those parents, outermost first.
   */
  private parentsOf(model: OperationModel, ids: string[], tenant: Tenant): Parents {
    const role = model.role;
    const own = 'collection' in role ? role.collection : undefined;
    const itemRole = ['read', 'update', 'delete', 'add-member', 'remove-member'].includes(role.kind);
    const parentCount = itemRole ? ids.length - 1 : ids.length;
    const parents: string[] = [];
    const chain: Parents['chain'] = [];
    let owner: StoredItem | undefined;
    for (let index = 0; index < parentCount; index += 1) {
      const collection = model.positions[index];
      if (!collection) continue;
      const key = ids[index] ?? '';
      const item = tenant.get({ collection: collection.key, parents: [...parents] }, key);
      if (!item || item.deleted)
        return { found: false, address: { collection: own?.key ?? '', parents }, chain };
      parents.push(key);
      if (isObject(item.value)) chain.push({ collection, key, value: item.value });
      owner = item;
    }
    const address = { collection: own?.key ?? '', parents };
    return owner ? { found: true, address, chain, owner } : { found: true, address, chain };
  }

  /** Whether a read's parameters can be judged here: none only Prism reads, and the validator accepts them. */
  private readsWithoutPrism(route: Route, ids: string[], search: string): boolean {
    const values: JsonObject = {};
    const path = route.model.operation.parameters.filter((p) => p.node.in === 'path');
    path.forEach((parameter, index) => {
      values[`path.${parameter.node.name}`] = ids[index];
    });
    if (search !== '') {
      for (const [name, value] of new URLSearchParams(search)) {
        // A parameter only Prism reads, a repeated one, or PHP's bracket form (`include[]=1`): Prism judges.
        if (route.complex.has(name) || `query.${name}` in values || name.includes('[')) return false;
        values[`query.${name}`] = value;
      }
    }
    return route.parameters?.(values) === true;
  }

  private async read(call: Call, collection: Collection, address: BucketAddress): Promise<Answer> {
    const item = call.tenant.get(address, call.key);
    if (!item || (item.deleted && !collection.keepsDeleted)) return call.prism('code=404');
    return this.itemAnswer(call.route.model.operation, 200, collection, item);
  }

  private async list(call: Call, address: BucketAddress): Promise<Answer> {
    const role = call.route.model.role;
    if (role.kind !== 'list') throw new Error('not a list');
    const { collection, list } = role;
    const page = pageOf({
      items: call.tenant.bucket(address).values(),
      list,
      query: new URLSearchParams(call.request.search),
      request: call.request,
    });
    if (page.pastEnd) {
      const { status, example } = page.pastEnd;
      return call.prism(`code=${status}${example ? `, example=${example}` : ''}`);
    }
    // Each item's answer is made once per version of it, as a read's is.
    const array = `[${page.items.map((item) => this.answerText(collection, item, list.items)).join(',')}]`;
    const body = list.envelope === undefined ? array : `{${JSON.stringify(list.envelope)}:${array}}`;
    return jsonAnswer(200, body, page.headers);
  }

  private async create(
    call: Call,
    collection: Collection,
    address: BucketAddress,
    judged: Answer,
  ): Promise<{ answer: Answer; created?: JsonObject }> {
    const { tenant, request } = call;
    const operation = call.route.model.operation;
    const body = parseJson(request.body);
    const value = this.items.create({
      collection,
      body: isObject(body) ? body : {},
      writeSchema: this.requestSchema(operation),
      parentId: address.parents.at(-1),
      donors: [parseJson(judged.body), this.examples.get(collection.key)],
      example: this.examples.get(collection.key)?.[collection.idField],
    });
    for (const [to, from] of Object.entries(call.route.model.fill ?? {})) {
      const filled = getByPointer(body, from);
      if (filled !== undefined) setAt(value, to, filled);
    }
    const secret = collection.secret;
    if (secret && (secret.when === undefined || value[secret.when] === true))
      value[secret.field] = generateSecret();
    const unique = this.uniqueValues(collection, value);
    if (unique.some(([field, text]) => tenant.holder(address, field, text) !== undefined))
      return { answer: await call.prism('code=409') };
    // An id made of fields (`compose`) that another item has: a fresh one instead, never an overwrite.
    if (tenant.get(address, String(value[collection.idField])))
      value[collection.idField] = this.values.id(
        collection.idSchema,
        this.examples.get(collection.key)?.[collection.idField],
      );
    const key = String(value[collection.idField]);
    const item = tenant.put(address, key, value);
    tenant.index(address, item, unique);
    const headers: Array<[string, string]> = [];
    if (this.documentsHeader(operation, judged.status, 'location'))
      headers.push(['Location', `${request.base}${this.itemPath(collection, address, key)}`]);
    return {
      answer: this.itemAnswer(operation, judged.status, collection, item, headers, true),
      created: value,
    };
  }

  private async update(
    call: Call,
    collection: Collection,
    address: BucketAddress,
    judged: Answer,
  ): Promise<Answer> {
    const { tenant, key } = call;
    const operation = call.route.model.operation;
    const item = tenant.get(address, key);
    if (!item || item.deleted || !isObject(item.value)) return call.prism('code=404');
    const body = parseJson(call.request.body);
    const next = this.items.update(
      collection,
      item.value,
      isObject(body) ? body : {},
      this.requestSchema(operation),
    );
    const unique = this.uniqueValues(collection, next);
    if (unique.some(([field, text]) => ![undefined, key].includes(tenant.holder(address, field, text))))
      return call.prism('code=409');
    item.value = next;
    tenant.changed(item);
    tenant.index(address, item, unique);
    return this.itemAnswer(operation, judged.status, collection, item);
  }

  private async remove(
    call: Call,
    role: Extract<OperationModel['role'], { kind: 'delete' }>,
    address: BucketAddress,
    judged: Answer,
  ): Promise<Answer> {
    const { tenant, key, prism } = call;
    const operation = call.route.model.operation;
    const { collection, softDelete } = role;
    const item = tenant.get(address, key);
    if (!item || item.deleted) return prism('code=404');
    const query = new URLSearchParams(call.request.search);
    const forced = query.get(softDelete?.unless ?? '')?.toLowerCase() === 'true';
    if (softDelete && !forced) {
      if (softDelete.refuse !== undefined) return prism(`code=${softDelete.refuse}`);
      if (softDelete.set && isObject(item.value)) {
        const set = softDelete.set;
        const value = item.value;
        if (Object.entries(set).every(([field, wanted]) => value[field] === wanted))
          return prism(`code=${softDelete.again ?? 410}`);
        item.value = { ...value, ...structuredClone(set) };
        tenant.changed(item);
        tenant.index(address, item, []);
        return this.itemAnswer(operation, judged.status, collection, item);
      }
    }
    const answer = this.itemAnswer(operation, judged.status, collection, {
      ...item,
      deleted: true,
      answers: undefined,
    });
    if (collection.keepsDeleted) {
      item.deleted = true;
      tenant.changed(item);
      tenant.index(address, item, []);
    } else tenant.remove(address, key);
    return answer;
  }

  private async addMember(
    call: Call,
    collection: Collection,
    address: BucketAddress,
    judged: Answer,
  ): Promise<Answer> {
    const { tenant, key } = call;
    const target = collection.memberOf;
    const member = target ? tenant.get({ collection: target.key, parents: [] }, key) : undefined;
    if (target && (!member || member.deleted)) return call.prism('code=404');
    const idSchema = target?.idSchema;
    const typed =
      idSchema && ['integer', 'number'].includes(this.schemas.type(idSchema) ?? '') ? Number(key) : key;
    if (!tenant.get(address, key)) tenant.put(address, key, typed);
    return judged;
  }

  private async writeData(
    call: Call,
    role: Extract<OperationModel['role'], { kind: 'write-data' }>,
    owner: StoredItem | undefined,
    judged: Answer,
  ): Promise<Answer> {
    if (!owner) return judged;
    const { mediaType, append, records } = role.representation;
    const text = call.request.body?.toString('utf8') ?? '';
    const refusal = records && this.recordsRefusal(records, owner, text);
    if (refusal) return await call.prism(`code=${refusal}`);
    owner.data ??= new Map();
    const appending = append && new URLSearchParams(call.request.search).get(append.name) === append.value;
    const current = owner.data.get(mediaType) ?? '';
    owner.data.set(mediaType, appending ? joinLines(current, text) : text);
    return judged;
  }

  /**
   * How records that do not fit the item (`x-state: {records}`) are refused: text that is not CSV is a bad
   * request (400); a record without one field per column the item has, or a field its column's type does
   * not allow, conflicts with the item's state (409). An empty field is no value, allowed in any column.
   */
  private recordsRefusal(rule: RecordsRule, owner: StoredItem, text: string): 400 | 409 | undefined {
    let records: string[][];
    try {
      records = parseCsv(text);
    } catch (error) {
      if (error instanceof CsvSyntaxError) return 400;
      throw error;
    }
    const columns = pick(owner.value, rule.columns)[0];
    if (!Array.isArray(columns)) return undefined;
    const fits = (record: string[]) =>
      record.length === columns.length &&
      record.every((field, at) => {
        const column = columns[at];
        const type = isObject(column) ? column[rule.type] : undefined;
        const schema = typeof type === 'string' ? rule.fields.get(type) : undefined;
        return field === '' || !schema || this.schemas.valid(this.schemas.at(schema.pointer), field);
      });
    return records.every(fits) ? undefined : 409;
  }

  private readData(
    call: Call,
    role: Extract<OperationModel['role'], { kind: 'read-data' }>,
    owner: StoredItem | undefined,
    judged: Answer,
  ): Answer {
    if (!owner) return judged;
    const { mediaType, header } = role.representation;
    let text = owner.data?.get(mediaType) ?? '';
    const query = new URLSearchParams(call.request.search);
    if (header && query.get(header.name)?.toLowerCase() === 'true') {
      // A CSV record of its own: a name with a comma, a quote or a line break is quoted.
      text = joinLines(formatCsv([pick(owner.value, header.path).map(String)]), text);
    }
    return { status: judged.status, rawHeaders: ['Content-Type', mediaType], body: Buffer.from(text) };
  }

  private async token(operation: Operation, request: StateRequest, prism: AskPrism): Promise<Answer> {
    const client = this.credentials.client(request.headers.authorization);
    if (!client) return prism(request.headers.authorization ? 'code=401' : undefined);
    const judged = await prism();
    if (!isSuccess(judged.status)) return judged;
    const form = /x-www-form-urlencoded/i.test(String(request.headers['content-type']))
      ? new URLSearchParams(request.body?.toString('utf8') ?? '')
      : undefined;
    const scope = new URLSearchParams(request.search).get('scope') ?? form?.get('scope') ?? undefined;
    const grant = this.credentials.grant(scope);
    if ('unknown' in grant) return prism(this.preferError(operation, 400, 'invalid_scope'));
    const token = this.credentials.issue(client, grant.granted);
    const body = parseJson(judged.body);
    const answer: JsonObject = isObject(body) ? body : {};
    Object.assign(answer, {
      access_token: token.accessToken,
      scope: token.scope,
      jti: token.jti,
      expires_in: token.expiresIn,
    });
    return {
      status: judged.status,
      rawHeaders: judged.rawHeaders,
      body: Buffer.from(JSON.stringify(answer)),
    };
  }

  /**
   * `Prefer` asking Prism for the operation's documented answer for a status, with its example whose OAuth
   * `error` is this one (RFC 6749 §5.2, RFC 6750 §3.1: `invalid_token`, `invalid_scope`) when it has one.
   */
  private preferError(operation: Operation, status: number, error: string): string {
    const content = operation.responses[String(status)]?.content;
    const media = isObject(content) ? content[JSON_TYPE] : undefined;
    const examples = isObject(media) && isObject(media.examples) ? media.examples : {};
    for (const [name, example] of Object.entries(examples)) {
      const value = this.validator.resolve<unknown>({ node: example, pointer: '' }).node;
      if (isObject(value) && isObject(value.value) && value.value.error === error)
        return `code=${status}, example=${name}`;
    }
    return `code=${status}`;
  }

  /** The item answered in the operation's documented body for `status` (none when it documents none). */
  /**
   * The item answered in the operation's documented body for `status` (none when it documents none). A
   * signing secret is answered by the create alone (`created`).
   */
  private itemAnswer(
    operation: Operation,
    status: number,
    collection: Collection,
    item: StoredItem,
    headers: Array<[string, string]> = [],
    created = false,
  ): Answer {
    const schema = this.answerSchema(operation, status);
    const rawHeaders = headers.flat();
    if (!schema) return { status, rawHeaders, body: Buffer.alloc(0) };
    const secret = collection.secret?.field;
    if (created && secret !== undefined && isObject(item.value) && secret in item.value)
      return jsonAnswer(
        status,
        JSON.stringify(this.projected(collection, item, item.value, schema)),
        rawHeaders,
      );
    // A create's answer is not kept: most items are created and never read.
    return jsonAnswer(status, this.answerText(collection, item, schema, !created), rawHeaders);
  }

  /**
   * An item answered in a schema, as JSON text: made once per version of the item (the store drops it on a
   * change). A signing secret is never in it (the create answers it, once).
   */
  private answerText(collection: Collection, item: StoredItem, schema: SchemaAt, remember = true): string {
    let text = item.answers?.get(schema.pointer);
    if (text !== undefined) return text;
    const secret = collection.secret?.field;
    let value = item.value;
    if (secret !== undefined && isObject(value) && secret in value) {
      const { [secret]: _, ...shown } = value;
      value = shown;
    }
    text = JSON.stringify(this.projected(collection, item, value, schema));
    if (remember && !item.deleted) {
      item.answers ??= new Map();
      item.answers.set(schema.pointer, text);
    }
    return text;
  }

  private projected(collection: Collection, item: StoredItem, value: unknown, schema: SchemaAt): unknown {
    return collection.members ? value : this.schemas.project(value, schema, this.contextOf(collection, item));
  }

  private contextOf(collection: Collection, item: StoredItem): ProjectionContext {
    const live = this.items.liveSchema(collection);
    return {
      deleted: item.deleted,
      ...(live && isObject(item.value) ? { self: { pointer: live.pointer, value: item.value } } : {}),
    };
  }

  /** The JSON schema of the operation's answer for a status, if it documents a JSON body (found once). */
  private answerSchema(operation: Operation, status: number): SchemaAt | undefined {
    const key = `${operation.operationId} ${status}`;
    if (this.answerSchemas.has(key)) return this.answerSchemas.get(key);
    const response = operation.responses[String(status)];
    const content = isObject(response?.content) ? response.content : undefined;
    const media = content?.[JSON_TYPE];
    const schema =
      isObject(media) && media.schema !== undefined
        ? this.schemas.resolve(
            media.schema,
            `${operation.pointer}/responses/${status}/content/application~1json/schema`,
          )
        : undefined;
    this.answerSchemas.set(key, schema);
    return schema;
  }

  private requestSchema(operation: Operation): SchemaAt | undefined {
    const body = operation.requestBody;
    const media = body?.content[JSON_TYPE];
    if (!body || !media || media.schema === undefined) return undefined;
    return this.schemas.resolve(media.schema, `${body.pointer}/content/application~1json/schema`);
  }

  private documentsHeader(operation: Operation, status: number, name: string): boolean {
    const headers = operation.responses[String(status)]?.headers;
    return isObject(headers) && Object.keys(headers).some((header) => header.toLowerCase() === name);
  }

  /** The path of an item: its collection's key with the parents' ids and its own. */
  private itemPath(collection: Collection, address: BucketAddress, key: string): string {
    const ids = [...address.parents, key];
    let index = 0;
    return `${collection.key}/{}`.replace(/\{\}/g, () => encodeURIComponent(ids[index++] ?? ''));
  }

  private uniqueValues(collection: Collection, value: JsonObject): Array<[string, string]> {
    const values: Array<[string, string]> = [];
    for (const { field, ignoreCase } of collection.unique) {
      const text = value[field];
      if (typeof text === 'string' || typeof text === 'number')
        values.push([field, ignoreCase ? String(text).toLowerCase() : String(text)]);
    }
    return values;
  }
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function jsonAnswer(status: number, body: unknown, rawHeaders: string[] = []): Answer {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { status, rawHeaders: ['Content-Type', JSON_TYPE, ...rawHeaders], body: Buffer.from(text) };
}

function parseJson(body: Buffer | undefined): unknown {
  if (!body || body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function decodePath(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A template's regular expression with one group per parameter. */
function capturing(template: string): RegExp {
  const source = templateToRegExp(template).source.replace(/\[\^\/\]\+/g, '([^/]+)');
  return new RegExp(source);
}

/** The operation's path and query parameters as one object schema (`path.id`, `query.limit`), as the server does. */
function parametersSchema(operation: Operation): JsonObject {
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const { node: parameter } of operation.parameters) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    const name = `${parameter.in}.${parameter.name}`;
    properties[name] = rebaseRefs(parameter.schema ?? {});
    if (parameter.required || parameter.in === 'path') required.push(name);
  }
  return { type: 'object', properties, required };
}

/** Query parameters whose value is not one scalar (arrays, objects, `anyOf`/`oneOf`): Prism reads them. */
function complexParameters(schemas: Schemas, operation: Operation): Set<string> {
  const names = new Set<string>();
  for (const { node: parameter, pointer } of operation.parameters) {
    if (parameter.in !== 'query') continue;
    const schema = schemas.resolve(parameter.schema ?? {}, `${pointer}/schema`);
    const type = schemas.type(schema);
    if (schemas.branches(schema).length > 0 || type === undefined || type === 'array' || type === 'object')
      names.add(parameter.name);
  }
  return names;
}

/** Two pieces of line-based text as one: `first`'s last line ended before `second` starts. */
function joinLines(first: string, second: string): string {
  if (first === '' || first.endsWith('\n')) return `${first}${second}`;
  return `${first}\n${second}`;
}
