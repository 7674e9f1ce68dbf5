import { defineConfig } from 'vitest/config';
import { sharedTestConfig } from '../../vitest.shared.js';

// npm installs from a registry and a full contract run: minutes, not seconds, on a loaded machine.
export default defineConfig({ test: { ...sharedTestConfig, testTimeout: 600_000 } });
