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
export { RUN_OPTIONS, runCli } from './cli.js';
export {
  type Answer,
  type CallOptions,
  type CallResult,
  ContractClient,
  type ContractClientOptions,
  type Credentials,
  type SentRequest,
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
} from './drift/index.js';
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
export { applyBaseline } from './run/baseline.js';
export { caseIds, defectKey, stableMessage } from './run/cases.js';
export {
  CHECK_NAMES,
  CHECKS,
  type CheckName,
  PHASES,
  type PhaseName,
  PROFILES,
  type ProfileName,
} from './run/checks.js';
export { redactRequest, toCurl } from './run/curl.js';
export {
  casesOf,
  REPORT_FORMAT,
  type ReportFile,
  ReportFileError,
  readReportFile,
  requestOf,
  type StoredFailure,
  type StoredRequest,
  toReportFile,
  writeReportFile,
} from './run/report-file.js';
export {
  counts,
  formatMatrix,
  formatSummary,
  idsOf,
  succeeded,
  toHtml,
  toJUnit,
  toMatrixCsv,
  writeReports,
} from './run/reports.js';
export {
  type PhaseRunner,
  type RunOptions,
  randomSeed,
  runContractTests,
} from './run/runner.js';
export {
  type BaselineOutcome,
  type CaseResult,
  DEFAULT_MAX_EXAMPLES,
  type Failure,
  failuresOf,
  type RunReport,
  type RunScopes,
  Session,
  type StatusRow,
} from './run/session.js';
export {
  coverageValues,
  type GenerationOptions,
  type InvalidValue,
  invalidValues,
  requestBodySchema,
  validValues,
} from './run/values/index.js';
export { type BundleName, loadBundle } from './spec.js';
export { TARGETS } from './targets/index.js';
export {
  type ClientCredentials,
  platformClient,
  platformScopes,
  webhooksPhase,
} from './targets/platform-target.js';
export { allowListFile, readAllowList } from './targets/site/drift-scenarios.js';
export type { ScenarioTarget } from './targets/site/harness.js';
export { type ScenarioPhaseOptions, type ScenarioSuite, scenarioPhase } from './targets/site/phase.js';
export { pngImage } from './targets/site/png.js';
export {
  type Target,
  type TargetContext,
  type TargetRun,
  TargetUnusable,
} from './targets/target.js';
export {
  compareVersions,
  inVersionRange,
  olderThan,
  specForVersion,
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
