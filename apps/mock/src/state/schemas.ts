// Reading the bundle's JSON Schemas for the state: what an object's properties are (through `$ref` and
// `allOf`), which branch of an `anyOf`/`oneOf` a stored item is answered as, and the projection of a stored
// item onto a response schema (only the properties the schema allows, `false` ones and `writeOnly` ones
// left out). Every answer built here is a projection of what was stored, never a schema restated.
import { isObject, type JsonObject, joinPointer, type SpecValidator } from '@platform-api/validator';

/** A schema of the bundle and where it lives (`#/components/schemas/User`); `false`/`true` schemas too. */
export interface SchemaAt {
  node: JsonObject | boolean;
  pointer: string;
}

/** What the answer is about: a stored item, alive or deleted, and its own schema (for `previous`-like fields). */
export interface ProjectionContext {
  deleted: boolean;
  /** The collection's item schema (resolved pointer) and the stored item: a property of this schema holds it. */
  self?: { pointer: string; value: JsonObject };
}

const OMIT = Symbol('omit');

export class Schemas {
  // A schema's walks, remembered by its pointer: answers are projections made per request, and a bundle's
  // schemas do not change while it is served.
  private readonly resolved = new Map<string, SchemaAt>();
  private readonly layered = new Map<string, SchemaAt[]>();
  private readonly named = new Map<string, Map<string, SchemaAt[]>>();
  private readonly branched = new Map<string, SchemaAt[]>();
  private readonly requiredNames = new Map<string, Set<string>>();

  constructor(readonly validator: SpecValidator) {}

  /** Follows `$ref`s to the schema itself. */
  resolve(node: unknown, pointer: string): SchemaAt {
    if (typeof node === 'boolean') return { node, pointer };
    let schema = this.resolved.get(pointer);
    if (!schema) {
      const resolved = this.validator.resolve<unknown>({ node, pointer });
      const target = resolved.node;
      schema = {
        node: typeof target === 'boolean' ? target : isObject(target) ? target : {},
        pointer: resolved.pointer,
      };
      this.resolved.set(pointer, schema);
    }
    return schema;
  }

  at(pointer: string): SchemaAt {
    return this.resolve({ $ref: pointer }, pointer);
  }

  /** The schema and the members of its `allOf`s, flattened: what a value of it must all satisfy. */
  layers(schema: SchemaAt): SchemaAt[] {
    if (typeof schema.node === 'boolean') return [schema];
    const known = this.layered.get(schema.pointer);
    if (known) return known;
    const layers: SchemaAt[] = [schema];
    const members = Array.isArray(schema.node.allOf) ? schema.node.allOf : [];
    members.forEach((member, index) => {
      layers.push(...this.layers(this.resolve(member, joinPointer(schema.pointer, 'allOf', String(index)))));
    });
    this.layered.set(schema.pointer, layers);
    return layers;
  }

  /** Each property an object schema names (through `allOf`), with every schema it is given. */
  properties(schema: SchemaAt): ReadonlyMap<string, SchemaAt[]> {
    const known = this.named.get(schema.pointer);
    if (known) return known;
    const found = new Map<string, SchemaAt[]>();
    for (const layer of this.layers(schema)) {
      if (typeof layer.node === 'boolean' || !isObject(layer.node.properties)) continue;
      for (const [name, node] of Object.entries(layer.node.properties)) {
        const list = found.get(name) ?? [];
        list.push(this.resolve(node, joinPointer(layer.pointer, 'properties', name)));
        found.set(name, list);
      }
    }
    this.named.set(schema.pointer, found);
    return found;
  }

  /** The first schema a property is given (searching `allOf`, then the branches of `anyOf`/`oneOf`). */
  property(schema: SchemaAt, name: string): SchemaAt | undefined {
    const direct = this.properties(schema)
      .get(name)
      ?.find((candidate) => candidate.node !== false);
    if (direct) return direct;
    for (const branch of this.branches(schema)) {
      const found = this.property(branch, name);
      if (found) return found;
    }
    return undefined;
  }

  /** The branches of the schema's `anyOf` or `oneOf` (of any `allOf` layer), resolved. */
  branches(schema: SchemaAt): SchemaAt[] {
    const known = this.branched.get(schema.pointer);
    if (known) return known;
    const branches: SchemaAt[] = [];
    for (const layer of this.layers(schema)) {
      if (typeof layer.node === 'boolean') continue;
      for (const keyword of ['anyOf', 'oneOf'] as const) {
        const list = layer.node[keyword];
        if (!Array.isArray(list)) continue;
        list.forEach((branch, index) => {
          branches.push(this.resolve(branch, joinPointer(layer.pointer, keyword, String(index))));
        });
      }
    }
    this.branched.set(schema.pointer, branches);
    return branches;
  }

  /** Properties every value must have (through `allOf`). */
  required(schema: SchemaAt): ReadonlySet<string> {
    const known = this.requiredNames.get(schema.pointer);
    if (known) return known;
    const names = new Set<string>();
    for (const layer of this.layers(schema)) {
      if (typeof layer.node !== 'boolean' && Array.isArray(layer.node.required))
        for (const name of layer.node.required) names.add(String(name));
    }
    this.requiredNames.set(schema.pointer, names);
    return names;
  }

  /** Whether an object of the schema may hold properties it does not name. */
  closed(schema: SchemaAt): boolean {
    return this.layers(schema).some(
      (layer) =>
        typeof layer.node !== 'boolean' &&
        (layer.node.additionalProperties === false || layer.node.unevaluatedProperties === false),
    );
  }

  /** A keyword's value on the schema or its first `allOf` layer that has it. */
  keyword(schema: SchemaAt, name: string): unknown {
    for (const layer of this.layers(schema)) {
      if (typeof layer.node !== 'boolean' && layer.node[name] !== undefined) return layer.node[name];
    }
    return undefined;
  }

  /** The schema's `x-state` declarations, merged over its `allOf` layers. */
  state(schema: SchemaAt): JsonObject {
    const merged: JsonObject = {};
    for (const layer of [...this.layers(schema)].reverse()) {
      if (typeof layer.node !== 'boolean' && isObject(layer.node['x-state']))
        Object.assign(merged, layer.node['x-state']);
    }
    return merged;
  }

  /** The schema's type, when it names one (through `allOf`). */
  type(schema: SchemaAt): string | undefined {
    const type = this.keyword(schema, 'type');
    return typeof type === 'string' ? type : undefined;
  }

  /** Whether the schema is the form a deleted resource is served in (`x-resource-deleted`). */
  isDeletedForm(schema: SchemaAt): boolean {
    return this.keyword(schema, 'x-resource-deleted') === true;
  }

  valid(schema: SchemaAt, value: unknown): boolean {
    if (typeof schema.node === 'boolean') return schema.node;
    return this.validator.validateAt(schema.pointer, value).length === 0;
  }

  /**
   * `value` as the schema allows it to be answered: properties it does not allow (a closed object's
   * unknown ones, `false`, `writeOnly`) left out, the branch of an `anyOf`/`oneOf` the context asks for, a
   * required `const` filled in (`deleted: true`), and a required property whose schema is the item's own
   * holding the item (WordPress's `previous`).
   */
  project(value: unknown, schema: SchemaAt, context: ProjectionContext): unknown {
    const projected = this.projectAt(value, schema, context);
    return projected === OMIT ? undefined : projected;
  }

  private projectAt(value: unknown, schema: SchemaAt, context: ProjectionContext): unknown {
    if (schema.node === false) return OMIT;
    if (schema.node === true) return value;
    if (this.keyword(schema, 'writeOnly') === true) return OMIT;
    const branches = this.branches(schema);
    if (branches.length > 0 && isObject(value)) return this.projectBranch(value, schema, branches, context);
    if (Array.isArray(value)) {
      const items = this.keyword(schema, 'items');
      if (items === undefined) return value;
      const itemSchema = this.resolve(items, this.pointerOf(schema, 'items'));
      return value.map((item) => this.projectAt(item, itemSchema, context)).filter((item) => item !== OMIT);
    }
    if (!isObject(value)) return value;
    return this.projectObject(value, schema, context);
  }

  private projectBranch(
    value: JsonObject,
    schema: SchemaAt,
    branches: SchemaAt[],
    context: ProjectionContext,
  ): unknown {
    const own = this.projectObject(value, schema, context);
    const deletedForm = (branch: SchemaAt) =>
      this.isDeletedForm(branch) || (context.self !== undefined && branch.pointer !== context.self.pointer);
    const ordered = context.deleted
      ? [...branches.filter(deletedForm), ...branches.filter((branch) => !deletedForm(branch))]
      : branches.filter((branch) => !this.isDeletedForm(branch));
    let first: unknown;
    for (const branch of ordered) {
      // What remains of a deleted item is what its form names (WordPress's `{deleted, previous}`).
      const candidate =
        context.deleted && deletedForm(branch)
          ? this.projectObject(own, branch, context, true)
          : this.projectAt(own, branch, context);
      if (candidate === OMIT) continue;
      first ??= candidate;
      if (this.valid(branch, candidate)) return candidate;
    }
    return first ?? own;
  }

  private projectObject(
    value: JsonObject,
    schema: SchemaAt,
    context: ProjectionContext,
    namedOnly = false,
  ): JsonObject {
    const properties = this.properties(schema);
    const closed = namedOnly || this.closed(schema);
    const projected: JsonObject = {};
    for (const [name, item] of Object.entries(value)) {
      const schemas = properties.get(name);
      if (!schemas) {
        if (!closed) projected[name] = item;
        continue;
      }
      let kept: unknown = item;
      for (const property of schemas) {
        kept = this.projectAt(kept, property, context);
        if (kept === OMIT) break;
      }
      if (kept !== OMIT) projected[name] = kept;
    }
    for (const name of this.required(schema)) {
      if (name in projected) continue;
      const property = properties.get(name)?.[0];
      if (!property || typeof property.node === 'boolean') continue;
      if ('const' in property.node) projected[name] = property.node.const;
      else if (context.self && property.pointer === context.self.pointer)
        projected[name] = this.project(context.self.value, property, { deleted: false });
    }
    return projected;
  }

  /** The pointer of a keyword's value on the layer that has it. */
  private pointerOf(schema: SchemaAt, keyword: string): string {
    for (const layer of this.layers(schema)) {
      if (typeof layer.node !== 'boolean' && layer.node[keyword] !== undefined)
        return joinPointer(layer.pointer, keyword);
    }
    return joinPointer(schema.pointer, keyword);
  }
}
