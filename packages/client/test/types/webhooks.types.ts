// Compile-time checks of the webhook payload types; never executed.
import { expectTypeOf } from 'vitest';
import { isChatEventOfType } from '../../src/index.js';
import type {
  CallbackMessage,
  ChatEvent,
  components,
  MessagePostedEvent,
  SlashCommandEvent,
  UsersJoinedChannelEvent,
  WebhookEventType,
  WebhookPayload,
  webhooks,
} from '../../src/types.js';

export function aliasesAreTheGeneratedTypes() {
  expectTypeOf<ChatEvent>().toEqualTypeOf<components['schemas']['ChatEvent']>();
  expectTypeOf<WebhookEventType>().toEqualTypeOf<
    'MESSAGE_POSTED' | 'SLASH_COMMAND' | 'THREAD_CREATED' | 'USERS_JOINED_CHANNEL' | 'USERS_LEFT_CHANNEL'
  >();
  expectTypeOf<WebhookPayload<'MESSAGE_POSTED'>>().toEqualTypeOf<MessagePostedEvent>();
  expectTypeOf<
    NonNullable<webhooks['USERS_JOINED_CHANNEL']['post']['requestBody']>['content']['application/json']
  >().toEqualTypeOf<UsersJoinedChannelEvent>();
  expectTypeOf<MessagePostedEvent>().toExtend<ChatEvent>();
}

export function eventsNarrow(event: ChatEvent) {
  expectTypeOf(event.callback.url).toEqualTypeOf<string>();
  expectTypeOf(event.callback.headers['x-chat-bot-token']).toEqualTypeOf<string>();
  // @ts-expect-error -- not every event has a message (THREAD_CREATED, USERS_* do not)
  event.message.text;

  if (isChatEventOfType(event, 'SLASH_COMMAND')) {
    expectTypeOf(event).toExtend<SlashCommandEvent>();
    expectTypeOf(event.event.type).toEqualTypeOf<'SLASH_COMMAND'>();
    expectTypeOf(event.message.text).toEqualTypeOf<string>();
  }
  if (isChatEventOfType(event, 'USERS_JOINED_CHANNEL')) {
    expectTypeOf(event.users).toBeArray();
  }
  // @ts-expect-error -- not an event type of the platform
  isChatEventOfType(event, 'MESSAGE_DELETED');
}

export function callbackMessages() {
  const reply: CallbackMessage = { content: { text: 'Deployed.' } };
  // @ts-expect-error -- the text goes inside `content`
  const flat: CallbackMessage = { text: 'Deployed.' };
  return [reply, flat];
}
