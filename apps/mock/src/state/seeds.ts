// Every tenant starts with the spec's examples, so that the example ids answer what the examples show: the
// examples of each item read (or, where a collection has none, of its list), a deleted form's left out; a
// sub-collection's under the item a field names (`channelId`) or the parent's first example; a set of
// members' ids under its parent's first example; a representation's write example under its owner's first.
// Examples are not held to unique fields: posting the spec's example request creates a second item.
import { isObject, type JsonObject, type Operation } from '@platform-api/validator';
import type { Collection, OperationModel, StateModel } from './model.js';
import type { SchemaAt, Schemas } from './schemas.js';
import type { BucketAddress, Tenant } from './store.js';

export interface Seed {
  address: BucketAddress;
  key: string;
  value: unknown;
  data?: { mediaType: string; text: string };
}

export function seedsOf(model: StateModel, schemas: Schemas): Seed[] {
  const seeds: Seed[] = [];
  /** The first seeded item key of each collection (under any parent), and its parents. */
  const first = new Map<Collection, { key: string; parents: string[] }>();
  /** The keys seeded in each collection. */
  const seededKeys = new Map<Collection, Set<string>>();
  const roles = [...model.operations.values()];
  const byKind = (collection: Collection, kind: string) =>
    roles.find(
      (entry) =>
        'collection' in entry.role && entry.role.collection === collection && entry.role.kind === kind,
    );
  // Parents before children: collection keys are ordered by length in the model.
  for (const collection of model.collections) {
    /**
     * The parents an example goes under: the parent item a field names (`channelId`), else the parent's first
     * example — whose id the field then takes, when the example names a parent that has no example.
     */
    const parentOf = (item: unknown): string[] | undefined => {
      if (!collection.parent) return [];
      const parent = first.get(collection.parent);
      if (!parent) return undefined;
      const seeded = seededKeys.get(collection.parent) ?? new Set<string>();
      if (isObject(item)) {
        for (const name of collection.parentParameters) {
          if (name === collection.idField || item[name] === undefined) continue;
          if (seeded.has(String(item[name]))) return [...parent.parents, String(item[name])];
          item[name] = typeof item[name] === 'number' ? Number(parent.key) : parent.key;
        }
      }
      return [...parent.parents, parent.key];
    };
    if (collection.members) {
      const list = byKind(collection, 'list');
      const parents = parentOf(undefined);
      if (!list || !parents) continue;
      for (const example of answerExamples(schemas, list.operation))
        for (const member of Array.isArray(example) ? example : [])
          seeds.push({
            address: { collection: collection.key, parents },
            key: String(member),
            value: member,
          });
      continue;
    }
    const read = byKind(collection, 'read');
    const list = byKind(collection, 'list');
    const items = read
      ? answerExamples(schemas, read.operation)
      : list
        ? answerExamples(schemas, list.operation).flatMap((example) => listItems(example, list))
        : [];
    const merged = new Map<string, JsonObject>();
    const parentsOf = new Map<string, string[]>();
    for (const example of items) {
      if (
        !isObject(example) ||
        example[collection.idField] === undefined ||
        isDeletedForm(schemas, collection, example)
      )
        continue;
      // A copy: the examples are the bundle's own objects.
      const item = structuredClone(example);
      const parents = parentOf(item);
      if (!parents) continue;
      const key = String(item[collection.idField]);
      merged.set(key, { ...merged.get(key), ...item });
      parentsOf.set(key, parents);
    }
    for (const [key, value] of merged) {
      const parents = parentsOf.get(key) ?? [];
      seeds.push({ address: { collection: collection.key, parents }, key, value });
      if (!first.has(collection)) first.set(collection, { key, parents });
      seededKeys.set(collection, (seededKeys.get(collection) ?? new Set()).add(key));
    }
  }
  for (const { role, operation } of roles) {
    if (role.kind !== 'write-data') continue;
    const owner = first.get(role.owner);
    const text = requestExample(schemas, operation, role.representation.mediaType);
    if (!owner || typeof text !== 'string') continue;
    const seed = seeds.find(
      (candidate) => candidate.address.collection === role.owner.key && candidate.key === owner.key,
    );
    if (seed) seed.data = { mediaType: role.representation.mediaType, text };
  }
  return seeds;
}

export function plant(tenant: Tenant, seeds: Seed[]): void {
  for (const seed of seeds) {
    const item = tenant.put(seed.address, seed.key, structuredClone(seed.value));
    if (seed.data) item.data = new Map([[seed.data.mediaType, seed.data.text]]);
  }
}

function listItems(example: unknown, list: OperationModel): unknown[] {
  if (list.role.kind !== 'list') return [];
  const envelope = list.role.list.envelope;
  const items = envelope !== undefined && isObject(example) ? example[envelope] : example;
  return Array.isArray(items) ? items : [];
}

function isDeletedForm(schemas: Schemas, collection: Collection, item: JsonObject): boolean {
  if (!collection.itemSchema) return false;
  return schemas
    .branches(collection.itemSchema)
    .some((branch: SchemaAt) => schemas.isDeletedForm(branch) && schemas.valid(branch, item));
}

/** The example values of an operation's success answer (JSON). */
function answerExamples(schemas: Schemas, operation: Operation): unknown[] {
  const status = operation.successStatus;
  const response = status === undefined ? undefined : operation.responses[String(status)];
  const content = isObject(response?.content) ? response.content : {};
  const media = Object.entries(content).find(([type]) => /json/i.test(type))?.[1];
  return examplesOf(schemas, media);
}

function requestExample(schemas: Schemas, operation: Operation, mediaType: string): unknown {
  return examplesOf(schemas, operation.requestBody?.content[mediaType])[0];
}

function examplesOf(schemas: Schemas, media: unknown): unknown[] {
  if (!isObject(media)) return [];
  if (media.example !== undefined) return [media.example];
  const examples = isObject(media.examples) ? Object.values(media.examples) : [];
  return examples
    .map((example) => schemas.validator.resolve<unknown>({ node: example, pointer: '' }).node)
    .filter(isObject)
    .map((example) => example.value)
    .filter((value) => value !== undefined);
}
