/**
 * Certificates for TLS tests, made fresh by the openssl command line (Debian's openssl package)
 * in a temporary directory: a CA, a server certificate for localhost / 127.0.0.1 signed by it, a
 * client certificate signed by it (mutual TLS), and a client certificate from an unrelated CA (which
 * a mutual-TLS server must refuse). Made once per test process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCerts {
  dir: string;
  /** PEM files on disk (for CLI flags) and their contents (for in-process options). */
  files: { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string; strangerCert: string; strangerKey: string };
  pem: { ca: Buffer; serverCert: Buffer; serverKey: Buffer; clientCert: Buffer; clientKey: Buffer; strangerCert: Buffer; strangerKey: Buffer };
  remove(): void;
}

let made: TestCerts | undefined;

function ssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function signed(dir: string, name: string, cn: string, ca: string, ext: string): void {
  ssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
  writeFileSync(join(dir, `${name}.ext`), ext);
  ssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial',
    '-out', `${name}.crt`, '-days', '2', '-sha256', '-extfile', `${name}.ext`);
}

/** The test process's certificates (made on first use, about 0.3 s). */
export function makeCerts(): TestCerts {
  if (made) return made;
  const dir = mkdtempSync(join(tmpdir(), 'tributary-certs-'));
  for (const ca of ['ca', 'stranger-ca']) {
    ssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${ca}.key`, '-out', `${ca}.crt`, '-days', '2', '-subj', `/CN=tributary test ${ca}`);
  }
  signed(dir, 'server', 'localhost', 'ca', 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nextendedKeyUsage=serverAuth\n');
  signed(dir, 'client', 'tributary test client', 'ca', 'extendedKeyUsage=clientAuth\n');
  signed(dir, 'stranger', 'tributary test stranger', 'stranger-ca', 'extendedKeyUsage=clientAuth\n');
  const files = {
    ca: join(dir, 'ca.crt'), serverCert: join(dir, 'server.crt'), serverKey: join(dir, 'server.key'),
    clientCert: join(dir, 'client.crt'), clientKey: join(dir, 'client.key'),
    strangerCert: join(dir, 'stranger.crt'), strangerKey: join(dir, 'stranger.key'),
  };
  const pem = Object.fromEntries(Object.entries(files).map(([k, f]) => [k, readFileSync(f)])) as TestCerts['pem'];
  made = { dir, files, pem, remove: () => rmSync(dir, { recursive: true, force: true }) };
  process.once('exit', () => made?.remove());
  return made;
}
