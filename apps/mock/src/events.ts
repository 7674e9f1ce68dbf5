// The chat events as the platform bundle describes them: the `webhooks` (one per event type), each
// with its payload example and delivery headers, and the callback operation an event's `callback.url`
// points at. Everything `trigger` sends or accepts is read from here, none of it written out by hand.
import {
  isObject,
  type JsonObject,
  loadBundle,
  type OpenApiDocument,
  type Operation,
  SpecValidator,
} from '@platform-api/validator';

/** The operation an event's `callback.url` has the shape of (see the `ChatEventCallback` schema). */
const CALLBACK_OPERATION_ID = 'postCallbackMessage';

/**
 * The challenge of a 401 from the callback operation. The spec states it in prose only (the description
 * of `components/headers/WwwAuthenticate`), so it is written here as the reference server sends it.
 */
export const CALLBACK_CHALLENGE = 'ChatBotToken realm="chat-callback"';

/** The headers a Standard Webhooks signature consists of, named by the standard (and its library). */
export const STANDARD_WEBHOOKS_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

export interface ChatEvent {
  /** The webhook's name: the event type (`MESSAGE_POSTED`). */
  type: string;
  operation: Operation;
  /** The media type of the payload. */
  contentType: string;
  /** The first example of the payload, as documented. */
  example: JsonObject;
  /** The delivery header that names the event type (its schema enumerates the event types). */
  eventTypeHeader: string;
}

export interface CallbackOperation {
  operation: Operation;
  /** The header that carries the callback token (the operation's apiKey security scheme). */
  tokenHeader: string;
  contentType: string;
}

export class ChatEvents {
  readonly validator: SpecValidator;
  readonly events: ReadonlyMap<string, ChatEvent>;
  readonly callback: CallbackOperation;

  constructor(document: OpenApiDocument = loadBundle('platform')) {
    this.validator = new SpecValidator(document);
    const events = new Map<string, ChatEvent>();
    for (const operation of this.validator.operations) {
      if (operation.kind !== 'webhook' || operation.method !== 'post') continue;
      events.set(operation.path, this.describeEvent(operation));
    }
    if (events.size === 0) throw new Error('The platform bundle documents no webhooks');
    this.events = events;
    this.callback = this.describeCallback();
  }

  get types(): string[] {
    return [...this.events.keys()];
  }

  event(type: string): ChatEvent {
    const event = this.events.get(type);
    if (!event) throw new Error(`Unknown event type "${type}". Known: ${this.types.join(', ')}`);
    return event;
  }

  private describeEvent(operation: Operation): ChatEvent {
    const [contentType, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
    if (!contentType || !media) throw new Error(`${operation.operationId} documents no payload`);
    const example = this.firstExample(media);
    if (!example) throw new Error(`${operation.operationId} has no payload example`);

    const standard = new Set<string>(Object.values(STANDARD_WEBHOOKS_HEADERS));
    let eventTypeHeader: string | undefined;
    for (const parameter of operation.parameters) {
      if (parameter.node.in !== 'header' || standard.has(parameter.node.name.toLowerCase())) continue;
      const schema = this.validator.resolve({
        node: parameter.node.schema,
        pointer: `${parameter.pointer}/schema`,
      }).node;
      if (Array.isArray(schema.enum) && schema.enum.includes(operation.path)) {
        eventTypeHeader = parameter.node.name.toLowerCase();
      } else if (parameter.node.required === true) {
        // A new required delivery header must be taught to `trigger`, not silently left out.
        throw new Error(
          `${operation.operationId}: the mock does not know how to send header ${parameter.node.name}`,
        );
      }
    }
    if (!eventTypeHeader) throw new Error(`${operation.operationId} documents no event type header`);
    return { type: operation.path, operation, contentType, example, eventTypeHeader };
  }

  private describeCallback(): CallbackOperation {
    const operation = this.validator.operation(CALLBACK_OPERATION_ID);
    const schemes = isObject(this.validator.document.components?.securitySchemes)
      ? (this.validator.document.components.securitySchemes as Record<string, JsonObject>)
      : {};
    const tokenHeader = operation.security
      .flatMap((alternative) => Object.keys(alternative))
      .map(
        (name) =>
          this.validator.resolve({ node: schemes[name], pointer: `#/components/securitySchemes/${name}` })
            .node,
      )
      .find((scheme) => scheme.type === 'apiKey' && scheme.in === 'header')?.name;
    if (typeof tokenHeader !== 'string')
      throw new Error(`${CALLBACK_OPERATION_ID} has no apiKey header scheme`);
    const contentType = Object.keys(operation.requestBody?.content ?? {})[0];
    if (!contentType) throw new Error(`${CALLBACK_OPERATION_ID} documents no request body`);
    return { operation, tokenHeader: tokenHeader.toLowerCase(), contentType };
  }

  /** The value of a media type's first example (`examples`, references followed, else `example`). */
  firstExample(media: JsonObject): JsonObject | undefined {
    if (isObject(media.examples)) {
      const [name, raw] = Object.entries(media.examples)[0] ?? [];
      if (name !== undefined) {
        const example = this.validator.resolve({ node: raw, pointer: '' }).node;
        if (isObject(example.value)) return structuredClone(example.value);
      }
    }
    return isObject(media.example) ? structuredClone(media.example) : undefined;
  }
}
