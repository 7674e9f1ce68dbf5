// Proof that the webhooks phase finds the defects only it can see: the reference server delivers its
// events to the phase's real HTTPS receiver (it trusts the receiver's certificate), and the calls the phase
// makes go through the defective proxy with the defects marked `webhooks`. The run must report each under
// its check and operation, and nothing else.
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

describe('webhook defects (reference server delivering to the run, its API behind a defective proxy)', () => {
  let tls: SelfSignedCertificate | undefined;
  let server: ReferenceServer;
  let proxy: DefectiveProxy;
  let client: ContractClient;

  beforeAll(async () => {
    tls = selfSignedCertificate();
    server = await startReferenceServer('sqlite', {
      PLATFORM_RATE_LIMIT: '0',
      PLATFORM_WEBHOOK_ALLOWLIST: '127.0.0.1/32',
      PLATFORM_WEBHOOK_CA_FILE: tls.certFile,
      PLATFORM_DELIVERY_POLL_INTERVAL: '100ms',
    });
    proxy = await startDefectiveProxy(server.url, planted);
    const credentials = await server.createClient('webhook-defects', scopes.split(' '));
    client = await platformClient(validator, proxy.url, credentials, scopes);
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    tls?.remove();
  });

  it('reports each webhook defect under its check and operation, and nothing else', async () => {
    if (!tls) throw new Error('no certificate for the receiver: the suite did not start');
    const report = await runContractTests({
      api: 'platform',
      target: 'the reference server behind the defective proxy, delivering to the run',
      validator,
      client,
      seed: testSeed(),
      phases: ['webhooks'],
      phaseRunners: { webhooks: webhooksPhase({ tls }) },
    });
    writeReports(report, reportFiles('webhook-defects'));
    console.log(formatSummary(report));
    expect(report.fatal).toBeUndefined();
    expect(planted.length).toBeGreaterThan(0);

    const failures = failuresOf(report);
    expect(unreported(planted, failures)).toEqual([]);
    expect(unexplained(planted, failures).map(describeFailure)).toEqual([]);
  }, 180_000);
});
