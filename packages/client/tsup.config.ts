import { defineConfig } from 'tsup';

export default defineConfig({
  // internal: the whole platform API for this repository (left out of the published package).
  entry: ['src/index.ts', 'src/types.ts', 'src/site-types.ts', 'src/internal.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'es2022',
});
