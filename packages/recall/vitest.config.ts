import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

// The smoke builds the instrumented server and runs both tools on it three times (the unmutated server,
// two mutants): minutes on a loaded machine, and the first run installs Schemathesis into .state/.
export default defineConfig({ test: { ...sharedTestConfig, testTimeout: 600_000 } });
