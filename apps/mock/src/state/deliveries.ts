// Events from the state: a write the spec declares as sending one (`x-state: {sends: MESSAGE_POSTED}`) POSTs
// it to every subscription of the caller's tenant to that event type, as the service delivers it
// (delivery.ts): the subscribed integration's configured headers, a Standard Webhooks signature with its
// signing secret, one attempt, no redirect. What is inferred:
// - a subscription is an item with a field whose enum names the spec's webhooks (its event type) and a URL
//   field (where to POST); the integration is its parent item, whose `{name, value}` list is its headers and
//   whose field marked `x-state: {signingSecret}` signs;
// - the payload is the webhook's example, each top-level object of it taken from the write where one fits
//   its schema: a field of the created item of that name (`author`), the created item itself or a parent
//   item under its singular name (`message`, `thread`, `channel`), and the declared `fill` from the request;
// - `callback` is live: the callback operation's URL for the event's channel on this mock, with a token of
//   the tenant valid for that channel for one hour; posting through it creates a message there.
import { randomBytes } from 'node:crypto';
import { getByPointer, isObject, type JsonObject } from '@platform-api/validator';
import { deliver, deliveryHeaders } from '../delivery.js';
import { ChatEvents } from '../events.js';
import type { Collection, StateModel } from './model.js';
import { setAt } from './pointers.js';
import type { SchemaAt, Schemas } from './schemas.js';
import type { Tenant } from './store.js';

/** What the mock's deliveries call themselves (the reference server's User-Agent, marked as the mock's). */
const USER_AGENT = 'platform-api-webhooks/1 (mock)';

/** How long an event's callback accepts messages, as the spec says of the service. */
const CALLBACK_MS = 60 * 60 * 1000;

interface SubscriptionShape {
  collection: Collection;
  eventField: string;
  urlField: string;
}

/** What a write that sends an event made and where: the created item (if any) and the items of its path. */
export interface EventSource {
  event: string;
  fill: Record<string, string>;
  tenantName: string;
  tenant: Tenant;
  /** Where the mock is as the caller sees it: the callback URL is built on it. */
  base: string;
  created?: { collection: Collection; value: JsonObject };
  parents: Array<{ collection: Collection; key: string; value: JsonObject }>;
  body: unknown;
}

export class Deliveries {
  private readonly subscriptions: SubscriptionShape[];
  private readonly callbacks = new Map<string, { tenant: string; channel: string; expires: number }>();

  private constructor(
    private readonly schemas: Schemas,
    private readonly events: ChatEvents,
    private readonly callbackCollection: Collection | undefined,
    model: StateModel,
    private readonly log: (line: string) => void,
    private readonly ca: string | undefined,
  ) {
    const names = new Set(events.types);
    this.subscriptions = model.collections.flatMap((collection) => {
      const item = collection.itemSchema;
      if (!item) return [];
      let eventField: string | undefined;
      let urlField: string | undefined;
      for (const [name, [property]] of schemas.properties(item)) {
        if (!property) continue;
        const values = schemas.keyword(property, 'enum');
        if (Array.isArray(values) && values.some((value) => names.has(String(value)))) eventField = name;
        if (schemas.keyword(property, 'format') === 'uri') urlField = name;
      }
      return eventField && urlField ? [{ collection, eventField, urlField }] : [];
    });
  }

  /** The deliveries of an API with webhooks and a callback operation; none for one without. */
  static of(
    model: StateModel,
    schemas: Schemas,
    log: (line: string) => void,
    ca?: string,
  ): Deliveries | undefined {
    if (!schemas.validator.document.webhooks) return undefined;
    let events: ChatEvents;
    try {
      events = new ChatEvents(schemas.validator.document);
    } catch {
      return undefined;
    }
    const callback = model.operations.get(events.callback.operation.operationId);
    const collection = callback?.role.kind === 'create' ? callback.role.collection.parent : undefined;
    return new Deliveries(schemas, events, collection, model, log, ca);
  }

  /** The header a callback token comes in. */
  get tokenHeader(): string {
    return this.events.callback.tokenHeader;
  }

  /** The tenant a callback token was issued to, if it is valid now for this channel. */
  callbackTenant(token: string, channel: string): string | undefined {
    const callback = this.callbacks.get(token);
    if (!callback || callback.channel !== channel) return undefined;
    if (callback.expires <= Date.now()) {
      this.callbacks.delete(token);
      return undefined;
    }
    return callback.tenant;
  }

  /** Sends the event to the tenant's subscriptions to it. The caller's answer does not wait for them. */
  send(source: EventSource): void {
    const event = this.events.events.get(source.event);
    if (!event) return;
    for (const { collection, eventField, urlField } of this.subscriptions) {
      for (const { parents, item } of source.tenant.entries(collection.key)) {
        const value = item.value;
        if (item.deleted || !isObject(value) || value[eventField] !== source.event) continue;
        const url = value[urlField];
        const integration = collection.parent
          ? source.tenant.get(
              { collection: collection.parent.key, parents: parents.slice(0, -1) },
              parents.at(-1) ?? '',
            )
          : undefined;
        const owner = isObject(integration?.value) ? integration.value : {};
        if (typeof url === 'string') this.deliver(source, url, owner, collection.parent);
      }
    }
  }

  private deliver(
    source: EventSource,
    url: string,
    owner: JsonObject,
    ownerCollection: Collection | undefined,
  ): void {
    const event = this.events.event(source.event);
    const webhookId = `evt_${randomBytes(10).toString('hex')}`;
    const payload = this.payload(source, webhookId);
    const body = JSON.stringify(payload);
    const headers = deliveryHeaders({
      event,
      webhookId,
      configured: this.configuredHeaders(owner, ownerCollection),
      secret: this.signingSecret(owner, ownerCollection),
      body,
      userAgent: USER_AGENT,
    });
    const problems = this.events.validator.validateRequest(event.operation, {
      headers: new Headers(headers),
      body,
    });
    if (problems.length > 0) {
      this.log(
        `event ${source.event} not sent to ${url}: ${problems.map((problem) => problem.message).join('; ')}`,
      );
      return;
    }
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return;
    }
    deliver(target, headers, body, this.ca ? { ca: this.ca } : {}).then((delivery) =>
      this.log(`event ${source.event} ${webhookId} → ${url} ${delivery.status ?? delivery.error}`),
    );
  }

  private payload(source: EventSource, webhookId: string): JsonObject {
    const event = this.events.event(source.event);
    const payload = structuredClone(event.example);
    const schema = this.payloadSchema(source.event);
    if (isObject(payload.event) && 'id' in payload.event) payload.event.id = webhookId;
    for (const name of Object.keys(payload)) {
      const property = schema && this.schemas.property(schema, name);
      if (!property || name === 'event' || name === 'callback') continue;
      for (const candidate of this.sourcesFor(name, source)) {
        const projected = this.schemas.project(candidate, property, { deleted: false });
        if (this.schemas.valid(property, projected)) {
          payload[name] = projected;
          break;
        }
      }
    }
    for (const [to, from] of Object.entries(source.fill)) {
      const value = getByPointer(source.body, from);
      if (value !== undefined) setAt(payload, to, value);
    }
    const channel = source.parents.find((parent) => parent.collection === this.callbackCollection);
    if (isObject(payload.callback) && channel) {
      const token = randomBytes(32).toString('hex');
      this.callbacks.set(token, {
        tenant: source.tenantName,
        channel: channel.key,
        expires: Date.now() + CALLBACK_MS,
      });
      const path = this.events.callback.operation.path.replace(/\{[^}]+\}/, encodeURIComponent(channel.key));
      payload.callback = { url: `${source.base}${path}`, headers: { [this.tokenHeader]: token } };
    }
    return payload;
  }

  /** Where a payload object named `name` may come from: the created item's field, the item, a parent. */
  private sourcesFor(name: string, source: EventSource): unknown[] {
    const candidates: unknown[] = [];
    if (source.created) {
      if (source.created.value[name] !== undefined) candidates.push(source.created.value[name]);
      if (singular(source.created.collection.name) === name) candidates.push(source.created.value);
    }
    for (const parent of source.parents)
      if (singular(parent.collection.name) === name) candidates.push(parent.value);
    return candidates;
  }

  private payloadSchema(type: string): SchemaAt | undefined {
    const body = this.events.event(type).operation.requestBody;
    const media = body?.content[this.events.event(type).contentType];
    if (!body || !media || media.schema === undefined) return undefined;
    return this.schemas.resolve(
      media.schema,
      `${body.pointer}/content/${this.events.event(type).contentType.replace(/\//g, '~1')}/schema`,
    );
  }

  /** The owner's list of `{name, value}` headers, as configured headers. */
  private configuredHeaders(owner: JsonObject, collection: Collection | undefined): Record<string, string> {
    const schema = collection?.itemSchema;
    if (!schema) return {};
    for (const [name, [property]] of this.schemas.properties(schema)) {
      const items = property && this.schemas.keyword(property, 'items');
      const fields =
        items === undefined
          ? []
          : [...this.schemas.properties(this.schemas.resolve(items, `${property?.pointer}/items`)).keys()];
      if (!fields.includes('name') || !fields.includes('value') || !Array.isArray(owner[name])) continue;
      return Object.fromEntries(
        (owner[name] as unknown[])
          .filter(isObject)
          .map((header) => [String(header.name), String(header.value)]),
      );
    }
    return {};
  }

  /** The owner's secret (its field marked `x-state: {signingSecret}`), when it has one. */
  private signingSecret(owner: JsonObject, collection: Collection | undefined): string | undefined {
    const field = collection?.secret?.field;
    const value = field === undefined ? undefined : owner[field];
    return typeof value === 'string' ? value : undefined;
  }
}

/** `messages` → `message`, `channels` → `channel`. */
function singular(name: string): string {
  return name.endsWith('s') ? name.slice(0, -1) : name;
}
