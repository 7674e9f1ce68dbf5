export { freePort, portIsFree } from './ports.js';
export { type SelfSignedCertificate, selfSignedCertificate } from './tls.js';
