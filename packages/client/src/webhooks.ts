import type { ChatEvent, WebhookEventType, WebhookPayload } from './types.js';

/**
 * Narrows an event payload by its type. The type sits in the nested `event.type`, and TypeScript only
 * narrows unions on top-level properties, so `if (payload.event.type === …)` alone does not narrow.
 *
 *     if (isChatEventOfType(payload, 'SLASH_COMMAND')) payload.message.text; // SlashCommandEvent
 */
export function isChatEventOfType<T extends WebhookEventType>(
  payload: ChatEvent,
  type: T,
): payload is Extract<ChatEvent, WebhookPayload<T>> {
  return payload.event.type === type;
}
