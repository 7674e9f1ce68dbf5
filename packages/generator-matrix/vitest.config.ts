import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

// Each cell runs a generator and a compiler (a JVM, Maven, Go, pip): minutes on a loaded machine, and the
// first run downloads the toolchains into .state/generators.
export default defineConfig({ test: { ...sharedTestConfig, testTimeout: 1_200_000 } });
