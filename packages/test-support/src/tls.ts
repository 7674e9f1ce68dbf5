import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SelfSignedCertificate {
  /** The temp folder holding both files. */
  dir: string;
  keyFile: string;
  /** Path of the certificate PEM, for servers that read a CA file. */
  certFile: string;
  key: string;
  cert: string;
  /** Deletes the temp folder (idempotent): call it when the test is done (its afterAll). */
  remove(): void;
}

/**
 * A throwaway self-signed certificate for localhost, 127.0.0.1 and ::1, made with the openssl CLI.
 * Its files live in a temp folder until `remove()`: test runners end their workers without running
 * exit handlers, so nothing here can delete it later on the caller's behalf.
 */
export function selfSignedCertificate(): SelfSignedCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'test-tls-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '2',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1',
      ],
      { stdio: 'ignore' },
    );
  } catch (error) {
    remove();
    throw error;
  }
  return {
    dir,
    keyFile,
    certFile,
    key: readFileSync(keyFile, 'utf8'),
    cert: readFileSync(certFile, 'utf8'),
    remove,
  };
}
