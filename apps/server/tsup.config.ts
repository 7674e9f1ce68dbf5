import { defineConfig } from 'tsup';

// One bundle per entry: the CLI (bin, with shebang) and the app factory for embedding in tests/tools.
export default defineConfig({
  entry: { cli: 'src/cli.ts', app: 'src/app.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  sourcemap: true,
  clean: true,
  dts: false,
  splitting: true,
  // Kysely is hundreds of small ES modules: resolved and compiled one by one they cost a sixth of the
  // server's start-up; bundled (and tree-shaken) they are one file among ours.
  noExternal: ['kysely'],
});
