// How a request body becomes a stored item, and how an update changes one:
// - the fields sent are kept, each in its read shape: a string written where the write schema also takes an
//   object of one property is stored as that object (WordPress's `title: "x"` → `{raw: "x"}`);
// - a created item gets a new id, the parent's id in a field named like the parent's path parameter
//   (`channelId`, `parent`), the create schema's defaults for fields left out, `now` in its read-only
//   timestamps, and, for the required and read-only fields still missing, the values of the documented
//   answer Prism gave (the spec's example);
// - an update merges the fields sent into the item (a field left out keeps its value; objects are merged
//   field by field), and sets `now` in read-only timestamps named for changes (`updatedAt`, `modified`);
// - fields derived from another (`x-state: {copy: raw}`, WordPress's `rendered`) follow it.
import { isObject, type JsonObject } from '@platform-api/validator';
import type { Collection } from './model.js';
import type { SchemaAt, Schemas } from './schemas.js';
import type { Values } from './values.js';

/** Timestamps an update sets: read-only, and named for a change. */
const CHANGE_STAMP = /updated|modified/i;

export class Items {
  constructor(
    private readonly schemas: Schemas,
    private readonly values: Values,
  ) {}

  /**
   * The schema a live item is answered in: the item schema, or, where it is an alternative of a live and a
   * deleted form (`anyOf: [DeletedUser, User]`), its first branch that is not the deleted form.
   */
  liveSchema(collection: Collection): SchemaAt | undefined {
    const item = collection.itemSchema;
    if (!item || !collection.keepsDeleted) return item;
    return this.schemas.branches(item).find((branch) => !this.schemas.isDeletedForm(branch)) ?? item;
  }

  create(options: {
    collection: Collection;
    body: JsonObject;
    writeSchema: SchemaAt | undefined;
    parentId: string | undefined;
    donors: unknown[];
    example: unknown;
  }): JsonObject {
    const { collection, body, writeSchema, parentId, donors, example } = options;
    const live = this.liveSchema(collection);
    const item: JsonObject = {};
    item[collection.idField] = this.values.id(collection.idSchema, example);
    const readProperties = live ? this.schemas.properties(live) : new Map<string, SchemaAt[]>();
    const closed = live ? this.schemas.closed(live) : false;
    for (const [name, value] of Object.entries(body)) {
      if (name === collection.idField) continue;
      if (closed && !readProperties.has(name)) continue;
      item[name] = this.readShape(
        value,
        writeSchema && this.schemas.property(writeSchema, name),
        readProperties.get(name)?.[0],
      );
    }
    if (parentId !== undefined) {
      for (const name of collection.parentParameters) {
        const property = readProperties.get(name)?.[0];
        if (name === collection.idField || !property || name in item) continue;
        const type = this.schemas.type(property);
        item[name] = type === 'integer' || type === 'number' ? Number(parentId) : parentId;
      }
    }
    if (writeSchema) {
      for (const [name, list] of this.schemas.properties(writeSchema)) {
        const value = this.schemas.keyword(list[0] as SchemaAt, 'default');
        if (value !== undefined && !(name in item) && (!closed || readProperties.has(name)))
          item[name] = structuredClone(value);
      }
    }
    // A field declared as the slug of another (`x-state: {slugOf: title}`) and left out: WordPress's slug.
    for (const [name, list] of readProperties) {
      const from = this.schemas.state(list[0] as SchemaAt).slugOf;
      if (typeof from !== 'string' || (typeof item[name] === 'string' && item[name] !== '')) continue;
      const slug = slugOf(textOf(item[from]));
      if (slug !== '') item[name] = slug;
    }
    // Timestamps left out (read-only, or required and not sent) are now.
    const now = new Date();
    const required = live ? this.schemas.required(live) : new Set<string>();
    const exampleItem = isObject(donors.at(-1)) ? (donors.at(-1) as JsonObject) : {};
    for (const [name, list] of readProperties) {
      const property = list[0] as SchemaAt;
      if (name in item || (!required.has(name) && this.schemas.keyword(property, 'readOnly') !== true))
        continue;
      const stamp = this.values.timestamp(property, exampleItem[name], now);
      if (stamp !== undefined) item[name] = stamp;
    }
    for (const [name, list] of readProperties) {
      if (name in item) continue;
      if (!required.has(name) && this.schemas.keyword(list[0] as SchemaAt, 'readOnly') !== true) continue;
      const donor = donors.find((candidate) => isObject(candidate) && candidate[name] !== undefined);
      if (isObject(donor)) item[name] = structuredClone(donor[name]);
    }
    if (live) this.derive(item, live);
    // An id declared as made of fields (`x-state: {compose: '{theme}//{slug}'}`), where they are all there.
    const compose = collection.idSchema && this.schemas.state(collection.idSchema).compose;
    if (typeof compose === 'string') {
      const composed = compose.replace(/\{([^}]+)\}/g, (_, name: string) =>
        typeof item[name] === 'string' || typeof item[name] === 'number' ? String(item[name]) : '\u0000',
      );
      if (!composed.includes('\u0000')) item[collection.idField] = composed;
    }
    return item;
  }

  /** The item with the fields sent merged in (a field left out keeps its value). */
  update(
    collection: Collection,
    current: JsonObject,
    body: JsonObject,
    writeSchema: SchemaAt | undefined,
  ): JsonObject {
    const live = this.liveSchema(collection);
    const readProperties = live ? this.schemas.properties(live) : new Map<string, SchemaAt[]>();
    const closed = live ? this.schemas.closed(live) : false;
    const next = structuredClone(current);
    for (const [name, value] of Object.entries(body)) {
      if (name === collection.idField || (closed && !readProperties.has(name))) continue;
      const shaped = this.readShape(
        value,
        writeSchema && this.schemas.property(writeSchema, name),
        readProperties.get(name)?.[0],
      );
      next[name] = isObject(shaped) && isObject(next[name]) ? merged(next[name], shaped) : shaped;
    }
    const now = new Date();
    for (const [name, list] of readProperties) {
      const property = list[0] as SchemaAt;
      if (!CHANGE_STAMP.test(name) || this.schemas.keyword(property, 'readOnly') !== true) continue;
      const stamp = this.values.timestamp(property, current[name], now);
      if (stamp !== undefined) next[name] = stamp;
    }
    if (live) this.derive(next, live);
    return next;
  }

  /**
   * A value written as it is read back: a string where the write schema also takes an object of one
   * property becomes that object; a scalar in another JSON type than the read schema's (`"true"`, `"1815"`)
   * becomes the read type; a string declared with a prefix (`x-state: {prefix: /}`) gets it.
   */
  private readShape(value: unknown, write: SchemaAt | undefined, read: SchemaAt | undefined): unknown {
    if (!read) return value;
    // The read type: the schema's, else that of its branches' when one is an object (`anyOf: [object, []]`).
    const readType =
      this.schemas.type(read) ??
      (this.schemas.branches(read).some((branch) => this.schemas.type(branch) === 'object')
        ? 'object'
        : undefined);
    if (typeof value === 'string' && write) {
      const prefix = this.schemas.state(write).prefix;
      if (typeof prefix === 'string' && !value.startsWith(prefix)) return `${prefix}${value}`;
      if (readType === 'object') {
        for (const branch of this.schemas.branches(write)) {
          const names = [...this.schemas.properties(branch).keys()];
          if (this.schemas.type(branch) === 'object' && names.length === 1)
            return { [names[0] as string]: value };
        }
      }
    }
    if (typeof value === 'string' && readType === 'boolean' && /^(true|false)$/i.test(value.trim()))
      return value.trim().toLowerCase() === 'true';
    if (
      typeof value === 'string' &&
      (readType === 'integer' || readType === 'number') &&
      value.trim() !== ''
    ) {
      const number = Number(value);
      if (Number.isFinite(number) && (readType === 'number' || Number.isInteger(number))) return number;
    }
    return value;
  }

  /** Sets the fields declared as copies of a sibling (`x-state: {copy: raw}`), in the item and its objects. */
  private derive(value: JsonObject, schema: SchemaAt): void {
    for (const [name, list] of this.schemas.properties(schema)) {
      const property = list[0] as SchemaAt;
      const copy = this.schemas.state(property).copy;
      if (typeof copy === 'string' && value[copy] !== undefined) value[name] = value[copy];
      const nested = value[name];
      if (isObject(nested) && this.schemas.properties(property).size > 0) this.derive(nested, property);
    }
  }
}

/** The text of a field: a string, or an object's `raw` (WordPress's `{raw, rendered}`). */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return isObject(value) && typeof value.raw === 'string' ? value.raw : '';
}

/** `Hello, World!` → `hello-world`, as WordPress's sanitize_title makes a slug. */
function slugOf(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function merged(current: JsonObject, change: JsonObject): JsonObject {
  const next: JsonObject = { ...current };
  for (const [name, value] of Object.entries(change))
    next[name] = isObject(value) && isObject(next[name]) ? merged(next[name], value) : value;
  return next;
}
