export { freePort, type SelfSignedCertificate, selfSignedCertificate } from '@platform-api/test-support';
export {
  type Check,
  HTTP_METHODS,
  type OpenApiDocument,
  type Operation,
  type Problem,
  SpecValidator,
  templateToRegExp,
} from '@platform-api/validator';
export {
  type CallOptions,
  type CallResult,
  ContractClient,
  type ContractClientOptions,
  type Credentials,
} from './client.js';
export {
  type AllowEntry,
  appliesTo,
  type ComparedRoute,
  compareRouteIndex,
  type Difference,
  type DriftAspect,
  type DriftReport,
  describeDifference,
  type ExpectedAbsence,
  type RouteIndex,
  routeToTemplate,
  type Triage,
  triageDifferences,
} from './drift.js';
export {
  collectExamples,
  type DocumentedExample,
  decodeForm,
  exampleRequest,
  firstExample,
  invalidBodyRequest,
  namedExample,
  namedObjectExample,
} from './examples.js';
export { examplesPhase, ignoredAuthPhase, negativeDataPhase, type PhaseOptions } from './phases.js';
export { type BundleName, loadBundle } from './spec.js';
export {
  compareVersions,
  inVersionRange,
  olderThan,
  type WpBefore,
  wpBefore,
  wpBeforeFor,
  wpNoRoute,
  wpSince,
} from './versions.js';
export {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from './webhook-receiver.js';
