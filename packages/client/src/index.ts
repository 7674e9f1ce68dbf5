export { PlatformApiError, PlatformAuthError } from './errors.js';
export type { OffsetPagedPath, PagedItem, PaginateOptions } from './paginate.js';
export { paginate } from './paginate.js';
export type { PlatformClient, PlatformClientOptions, PlatformScope } from './platform-client.js';
export { createPlatformClient } from './platform-client.js';
export type { SiteClient, SiteClientOptions } from './site-client.js';
export { createSiteClient } from './site-client.js';
export type * from './types.js';
export { isChatEventOfType } from './webhooks.js';
