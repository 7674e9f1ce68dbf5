// The site's stateful phase: the scenarios of the site suite (target/site: walks through WordPress
// content that create, revise, trash and delete what they use, and the drift check against the site's
// route index), run by vitest against the given site; each scenario becomes one site_scenario result.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PhaseRunner } from '../run/runner.js';

export interface SiteTarget {
  url: string;
  user: string;
  appPassword: string;
  wpVersion?: string;
}

interface VitestJson {
  testResults: Array<{
    name: string;
    status: string;
    message?: string;
    assertionResults: Array<{ fullName: string; status: string; failureMessages: string[] }>;
  }>;
}

export function siteScenariosPhase(site: SiteTarget): PhaseRunner {
  return async (session) => {
    const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
    const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
    const scratch = mkdtempSync(join(tmpdir(), 'contract-site-'));
    const output = join(scratch, 'results.json');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      WORDPRESS_URL: site.url,
      WORDPRESS_USER: site.user,
      WORDPRESS_APP_PASSWORD: site.appPassword,
      // A site that does not answer fails the run instead of being skipped.
      WORDPRESS_REQUIRED: 'true',
    };
    delete env.WORDPRESS_VERSION;
    if (site.wpVersion) env.WORDPRESS_VERSION = site.wpVersion;
    try {
      const exitCode = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          [
            vitest,
            'run',
            '--config',
            'vitest.site-target.config.ts',
            '--reporter=json',
            `--outputFile=${output}`,
          ],
          { cwd: packageDir, env, stdio: ['ignore', 'ignore', 'inherit'] },
        );
        child.once('error', reject);
        child.once('exit', (code) => resolve(code));
      });
      const results = JSON.parse(readFileSync(output, 'utf8')) as VitestJson;
      for (const file of results.testResults) {
        // A file whose hooks failed (a site that refuses the credentials) reports its tests as skipped:
        // the file's failure is the result, not a run of skips.
        if (file.status === 'failed' && file.message) {
          session.fail('site_scenario', { operationId: file.name }, file.message, {
            request: { method: 'GET', url: site.url, headers: {} },
          });
        }
        for (const test of file.assertionResults) {
          const scenario = { operationId: test.fullName };
          if (test.status === 'passed') session.pass('site_scenario', scenario);
          else if (test.status === 'failed')
            session.fail('site_scenario', scenario, test.failureMessages.join('\n').slice(0, 2000), {
              request: { method: 'GET', url: site.url, headers: {} },
            });
          else session.skip('site_scenario', test.fullName, `vitest reported it ${test.status}`);
        }
      }
      // vitest knows of failures its JSON does not place in a test (an error outside any test, a site that
      // refuses the credentials before the first one): its exit code is the last word.
      if (exitCode !== 0 && !session.failedAny('site_scenario')) {
        session.fail('site_scenario', { operationId: 'the site suite' }, `vitest exited with ${exitCode}`, {
          request: { method: 'GET', url: site.url, headers: {} },
        });
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  };
}
