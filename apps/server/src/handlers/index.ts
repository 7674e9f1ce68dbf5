import { chatHandlers } from './chat.js';
import { datasetHandlers } from './datasets.js';
import { groupHandlers } from './groups.js';
import { healthHandlers } from './health.js';
import { integrationHandlers } from './integrations.js';
import { tokenHandlers } from './token.js';
import type { HandlerMap } from './types.js';
import { userHandlers } from './users.js';

/** operationId → handler for every operation of the platform spec (a test checks the match both ways). */
export const handlers: HandlerMap = {
  ...tokenHandlers,
  ...healthHandlers,
  ...userHandlers,
  ...groupHandlers,
  ...datasetHandlers,
  ...chatHandlers,
  ...integrationHandlers,
};
