// An integration's event endpoint: verifies the Standard Webhooks signature (when the integration was
// created with `signDeliveries: true`), types the payload, and answers a slash command through the
// event's callback. The README quotes this file; test/webhook-receiver.test.ts runs it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { type CallbackMessage, type ChatEvent, isChatEventOfType } from '../src/index.js';

export interface WebhookReceiverOptions {
  /** The integration's `signingSecret` (`whsec_…`); without it, payloads are accepted unsigned. */
  signingSecret?: string;
  fetch?: typeof globalThis.fetch;
}

export function createWebhookReceiver(options: WebhookReceiverOptions = {}) {
  const signatures = options.signingSecret ? new Webhook(options.signingSecret) : undefined;
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const seenEventIds = new Set<string>(); // delivery is at-least-once: webhook-id repeats on retries

  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8'); // verify the bytes as sent, before parsing

    let event: ChatEvent;
    try {
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
      );
      event = (signatures ? signatures.verify(rawBody, headers) : JSON.parse(rawBody)) as ChatEvent;
    } catch (error) {
      response.writeHead(error instanceof WebhookVerificationError ? 401 : 400).end();
      return;
    }
    response.writeHead(204).end(); // acknowledge first: any 2xx counts as delivered

    const eventId = request.headers['webhook-id'];
    if (typeof eventId === 'string') {
      if (seenEventIds.has(eventId)) return;
      seenEventIds.add(eventId);
    }

    try {
      if (isChatEventOfType(event, 'SLASH_COMMAND')) {
        // event is a SlashCommandEvent here: author and message are typed and present.
        await postBack(event, `${event.author.displayName} ran ${event.message.text}`);
      } else if (isChatEventOfType(event, 'USERS_JOINED_CHANNEL')) {
        await postBack(event, `Welcome, ${event.users.map((user) => user.displayName).join(', ')}!`);
      }
    } catch (error) {
      console.error(`event ${eventId}: post-back failed`, error); // the event was already acknowledged
    }
  };

  /** Posts a message to the event's channel; the callback's headers carry its x-chat-bot-token. */
  async function postBack(event: ChatEvent, text: string): Promise<void> {
    const message: CallbackMessage = { content: { text } };
    const answer = await fetchImpl(event.callback.url, {
      method: 'POST',
      headers: { ...event.callback.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(message),
    });
    if (!answer.ok) throw new Error(`callback answered ${answer.status}`);
  }
}
