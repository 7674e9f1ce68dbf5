// Proof that the webhooks phase finds the defects only it can see: the reference server delivers its
// events to the phase's real HTTPS receiver (it trusts the receiver's certificate), and the calls the phase
// makes go through the defective proxy, planting one defect marked `webhooks` a run. Each run must report
// its defect under its check and operation, and nothing else.

import { deliveringTo } from '@platform-api/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ContractClient,
  failuresOf,
  formatSummary,
  loadBundle,
  platformClient,
  runContractTests,
  type SelfSignedCertificate,
  SpecValidator,
  selfSignedCertificate,
  webhooksPhase,
  writeReports,
} from '../../src/index.js';
import {
  DEFECT_NAMES,
  DEFECTS,
  type DefectiveProxy,
  startDefectiveProxy,
  unexplained,
  unreported,
} from '../fixture/defective-proxy.js';
import { describeFailure, reportFiles, testSeed } from '../support/run.js';
import { type ReferenceServer, startReferenceServer } from './support/reference-server.js';

const validator = new SpecValidator(loadBundle('platform'));
const scopes = 'user data chat';
const planted = DEFECT_NAMES.filter((name) => 'webhooks' in DEFECTS[name]);

// A defect that stops deliveries costs a run this wait; the others' events come within a second here.
const EVENT_WAIT_MS = 20_000;

describe('webhook defects (reference server delivering to the run, its API behind a defective proxy)', () => {
  let tls: SelfSignedCertificate | undefined;
  let server: ReferenceServer;

  beforeAll(async () => {
    tls = selfSignedCertificate();
    server = await startReferenceServer('sqlite', {
      PLATFORM_RATE_LIMIT: '0',
      ...deliveringTo(tls.certFile),
    });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    tls?.remove();
  });

  it('has defects only the webhooks phase finds', () => {
    expect(planted.length).toBeGreaterThan(0);
  });

  // One run a defect: a server that delivers nothing would hide the callback's.
  it.each(planted)(
    'reports %s under its check and operation, and nothing else',
    async (name) => {
      if (!tls) throw new Error('no certificate for the receiver: the suite did not start');
      let proxy: DefectiveProxy | undefined;
      try {
        proxy = await startDefectiveProxy(server.url, [name]);
        const credentials = await server.createClient(
          `webhook-defects-${name.replaceAll('_', '-')}`,
          scopes.split(' '),
        );
        const client: ContractClient = await platformClient(validator, proxy.url, credentials, scopes);
        const report = await runContractTests({
          api: 'platform',
          target: `the reference server behind the defective proxy (${name}), delivering to the run`,
          validator,
          client,
          seed: testSeed(),
          phases: ['webhooks'],
          phaseRunners: { webhooks: webhooksPhase({ tls, timeoutMs: EVENT_WAIT_MS }) },
        });
        writeReports(report, reportFiles(`webhook-defects-${name}`));
        console.log(formatSummary(report));
        expect(report.fatal).toBeUndefined();
        const failures = failuresOf(report);
        expect(unreported([name], failures)).toEqual([]);
        expect(unexplained([name], failures).map(describeFailure)).toEqual([]);
      } finally {
        await proxy?.close();
      }
    },
    180_000,
  );
});
