// The mock's memory: one store per tenant (the credentials' owner), each a set of buckets — the items of one
// collection under one parent item (`/v1/groups/{}/users` of group 876655018). Items keep the order they were
// stored in. A tenant holds at most `maxItems` items (the oldest go first, with what belongs to them), and the
// mock at most `maxTenants` tenants (the least recently active go first): memory stays bounded. Nothing is
// written to disk: a restart starts empty.
export interface StoredItem {
  /** The item's id as its path parameter spells it. */
  readonly key: string;
  /** The key of its bucket (one string, shared by the bucket's items). */
  readonly bucket: string;
  /** The item (a member's id, for a set of members). */
  value: unknown;
  /** Deleted, and kept only to answer its deleted form. */
  deleted: boolean;
  /** A representation stored with it (a dataset's CSV), by media type. */
  data?: Map<string, string>;
  /** Answers already serialized for this version of the item, by schema pointer (dropped on change). */
  answers?: Map<string, string>;
  /** Its entries in the tenant's unique index (`x-state: {unique}` fields). */
  unique?: string[];
}

/** Where a bucket is: a collection, and the keys of the items it belongs to (outermost first). */
export interface BucketAddress {
  collection: string;
  parents: readonly string[];
}

const addressKey = (address: BucketAddress) => [address.collection, ...address.parents].join('\u0000');

export class Tenant {
  private readonly buckets = new Map<string, Map<string, StoredItem>>();
  /** Every stored item, oldest first. */
  private readonly age = new Set<StoredItem>();
  /** The buckets under each item (`bucket\u0000key`), to delete them with it. */
  private readonly children = new Map<string, Set<string>>();
  /** Unique values of live items: `bucket\u0000field\u0000value` → the item's key. */
  private readonly uniqueIndex = new Map<string, string>();

  constructor(private readonly maxItems: number) {}

  get size(): number {
    return this.age.size;
  }

  bucket(address: BucketAddress): ReadonlyMap<string, StoredItem> {
    return this.buckets.get(addressKey(address)) ?? EMPTY;
  }

  /** Every item of a collection, whatever its parents. */
  *entries(collection: string): Generator<{ parents: string[]; item: StoredItem }> {
    for (const [bucketKey, bucket] of this.buckets) {
      const [name, ...parents] = bucketKey.split('\u0000');
      if (name !== collection) continue;
      for (const item of bucket.values()) yield { parents, item };
    }
  }

  get(address: BucketAddress, key: string): StoredItem | undefined {
    return this.buckets.get(addressKey(address))?.get(key);
  }

  /** Stores (or replaces) an item; the oldest items go when the tenant is over its limit. */
  put(address: BucketAddress, key: string, value: unknown): StoredItem {
    let bucketKey = addressKey(address);
    let bucket = this.buckets.get(bucketKey);
    // One string for all the bucket's items (a copy per item would be memory for nothing).
    if (bucket) bucketKey = (bucket.values().next().value as StoredItem | undefined)?.bucket ?? bucketKey;
    else {
      bucket = new Map();
      this.buckets.set(bucketKey, bucket);
      if (address.parents.length > 0) {
        const owner = ownerKey(address);
        const set = this.children.get(owner) ?? new Set();
        set.add(bucketKey);
        this.children.set(owner, set);
      }
    }
    const existing = bucket.get(key);
    if (existing) {
      existing.value = value;
      existing.answers = undefined;
      return existing;
    }
    const item: StoredItem = { key, bucket: bucketKey, value, deleted: false };
    bucket.set(key, item);
    this.age.add(item);
    while (this.age.size > this.maxItems) {
      const oldest = this.age.values().next().value as StoredItem;
      this.drop(oldest.bucket, oldest.key);
    }
    return item;
  }

  /** Removes an item and everything under it. */
  remove(address: BucketAddress, key: string): void {
    this.drop(addressKey(address), key);
  }

  /** The item's new version: its cached answers are dropped. */
  changed(item: StoredItem): void {
    item.answers = undefined;
  }

  /** The key of the live item of the bucket whose unique `field` has this value, if any. */
  holder(address: BucketAddress, field: string, value: string): string | undefined {
    return this.uniqueIndex.get(`${addressKey(address)}\u0000${field}\u0000${value}`);
  }

  /** Sets the unique values an item holds (none: a deleted item, or one the index does not cover). */
  index(address: BucketAddress, item: StoredItem, values: Array<[field: string, value: string]>): void {
    this.unindex(item);
    const bucketKey = addressKey(address);
    item.unique = values.map(([field, value]) => `${bucketKey}\u0000${field}\u0000${value}`);
    for (const entry of item.unique) this.uniqueIndex.set(entry, item.key);
  }

  private unindex(item: StoredItem): void {
    for (const entry of item.unique ?? [])
      if (this.uniqueIndex.get(entry) === item.key) this.uniqueIndex.delete(entry);
    item.unique = undefined;
  }

  private drop(bucketKey: string, key: string): void {
    const item = this.buckets.get(bucketKey)?.get(key);
    if (!item) return;
    this.unindex(item);
    this.buckets.get(bucketKey)?.delete(key);
    this.age.delete(item);
    const owner = `${bucketKey}\u0000${key}`;
    for (const child of this.children.get(owner) ?? []) {
      for (const childKey of [...(this.buckets.get(child)?.keys() ?? [])]) this.drop(child, childKey);
      this.buckets.delete(child);
    }
    this.children.delete(owner);
  }
}

/** The key of the item a bucket belongs to, as `drop` names it: its own bucket, then its key. */
function ownerKey(address: BucketAddress): string {
  return address.parents.length === 0 ? '' : `${ownerBucketKey(address)}\u0000${address.parents.at(-1)}`;
}

/**
 * The parent item's bucket: its collection is the one this bucket's collection key extends, and its
 * parents all but the last of this one's.
 */
function ownerBucketKey(address: BucketAddress): string {
  const segments = address.collection.split('/');
  const parentCollection = segments.slice(0, segments.lastIndexOf('{}')).join('/');
  return [parentCollection, ...address.parents.slice(0, -1)].join('\u0000');
}

const EMPTY: ReadonlyMap<string, StoredItem> = new Map();

export interface StoreOptions {
  /** Items a tenant holds at most (default 10,000): the oldest go first. */
  maxItems?: number;
  /** Tenants the mock holds at most (default 1,000): the least recently active go first. */
  maxTenants?: number;
}

export const DEFAULT_MAX_ITEMS = 10_000;
export const DEFAULT_MAX_TENANTS = 1_000;

export class Store {
  private readonly tenants = new Map<string, Tenant>();
  readonly maxItems: number;
  readonly maxTenants: number;

  constructor(
    private readonly seed: (tenant: Tenant) => void,
    options: StoreOptions = {},
  ) {
    this.maxItems = options.maxItems ?? DEFAULT_MAX_ITEMS;
    this.maxTenants = options.maxTenants ?? DEFAULT_MAX_TENANTS;
  }

  /** The tenant's store, made (with the spec's examples) on first use. */
  tenant(name: string): Tenant {
    let tenant = this.tenants.get(name);
    if (tenant) {
      // Most recently active last: the first entry is the one to drop.
      this.tenants.delete(name);
      this.tenants.set(name, tenant);
      return tenant;
    }
    tenant = new Tenant(this.maxItems);
    this.seed(tenant);
    this.tenants.set(name, tenant);
    while (this.tenants.size > this.maxTenants) {
      const oldest = this.tenants.keys().next().value as string;
      this.tenants.delete(oldest);
    }
    return tenant;
  }

  /** Forgets a tenant: its next request starts again from the examples. */
  reset(name: string): void {
    this.tenants.delete(name);
  }

  get size(): number {
    let items = 0;
    for (const tenant of this.tenants.values()) items += tenant.size;
    return items;
  }
}
