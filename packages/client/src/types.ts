// The platform API's generated types, and aliases of the ones callers name most. Aliases only: every
// type here is derived from src/generated/platform.ts, so a spec change shows up in the compiler.
import type { components, webhooks } from './generated/platform.js';

export type { $defs, components, operations, paths, webhooks } from './generated/platform.js';

/** Every component schema, by name: `Schemas['User']`. */
export type Schemas = components['schemas'];

/** The event types the platform delivers to integrations (the keys of the spec's `webhooks`). */
export type WebhookEventType = keyof webhooks;
/** The JSON payload the platform POSTs for one event type: `WebhookPayload<'MESSAGE_POSTED'>`. */
export type WebhookPayload<T extends WebhookEventType> = NonNullable<
  webhooks[T]['post']['requestBody']
>['content']['application/json'];

/** Any event payload; narrow it on `event.type`. */
export type ChatEvent = Schemas['ChatEvent'];
export type MessagePostedEvent = Schemas['MessagePostedEvent'];
export type SlashCommandEvent = Schemas['SlashCommandEvent'];
export type ThreadCreatedEvent = Schemas['ThreadCreatedEvent'];
export type UsersJoinedChannelEvent = Schemas['UsersJoinedChannelEvent'];
export type UsersLeftChannelEvent = Schemas['UsersLeftChannelEvent'];
/** The body to POST to an event's `callback.url`. */
export type CallbackMessage = Schemas['CallbackMessage'];

export type ApiError = Schemas['ApiError'];
export type OAuthError = Schemas['OAuthError'];
export type TokenResponse = Schemas['TokenResponse'];
export type User = Schemas['User'];
export type UserCreate = Schemas['UserCreate'];
export type UserUpdate = Schemas['UserUpdate'];
export type UserSummary = Schemas['UserSummary'];
export type Group = Schemas['Group'];
export type GroupSummary = Schemas['GroupSummary'];
export type Dataset = Schemas['Dataset'];
export type DatasetSummary = Schemas['DatasetSummary'];
export type Integration = Schemas['Integration'];
export type IntegrationCreate = Schemas['IntegrationCreate'];
export type Subscription = Schemas['Subscription'];
export type SubscriptionCreate = Schemas['SubscriptionCreate'];
export type ChatMessage = Schemas['ChatMessage'];
