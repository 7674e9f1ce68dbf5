export {
  type HttpRequest,
  type HttpResponse,
  httpRequest,
  type RawHttpResponse,
  rawExchange,
  rawHttpRequest,
} from './http.js';
export { type CheckLayersOptions, checkLayers, type LayerViolations } from './layers.js';
export { freePort, portIsFree } from './ports.js';
export {
  type StartedProcess,
  type StartProcessOptions,
  startProcess,
  startTimeoutMs,
} from './processes.js';
export { type PythonVenv, type PythonVenvOptions, pythonVenv } from './python-venv.js';
export { readmeBlock } from './readme.js';
export {
  deliveringTo,
  type ReferenceServer,
  type ReferenceServerOptions,
  startReferenceServer,
} from './reference-server.js';
export { type TestDatabase, testDatabaseUrl } from './test-database.js';
export { type SelfSignedCertificate, selfSignedCertificate } from './tls.js';
export { skippedTitle, type UnavailableOptions, unavailable } from './unavailable.js';
export type { WalkStep } from './walk-step.js';
