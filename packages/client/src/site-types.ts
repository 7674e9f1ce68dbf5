// The content site API's generated types (src/generated/site.ts).
export type { $defs, components, operations, paths, webhooks } from './generated/site.js';
