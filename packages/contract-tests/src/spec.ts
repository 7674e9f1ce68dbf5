// The bundles are read by @platform-api/validator, the one model of the spec; re-exported for the suite's users.
export { type BundleName, loadBundle } from '@platform-api/validator';
