/**
 * The API server's own client certificates (towards kubelets, towards APIService backends),
 * kept in the data dir's PKI folder beside the CA that signs them. A start reuses them while
 * they are signed by the current CA and valid for more than a month; only when one is missing
 * or stale is a new one issued, which loads the X.509 library (the slowest import of a start).
 */
import { X509Certificate, createPrivateKey, createPublicKey } from 'node:crypto';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Validity of an issued client certificate: one year. */
const VALIDITY_MS = 365 * 24 * 3600 * 1000;
/** A certificate closer than this to its end is issued again. */
const RENEW_BEFORE_MS = 30 * 24 * 3600 * 1000;

/** A PEM certificate and its private key. */
export interface CertificateAndKey {
  cert: string;
  key: string;
}

/**
 * True when `pair` is a certificate for `commonName`, signed by `caCert`, valid at `now` and for
 * more than a month after it, whose key matches.
 */
export function reusableClientCertificate(pair: CertificateAndKey, caCert: string, commonName: string, now: Date): boolean {
  try {
    const cert = new X509Certificate(pair.cert);
    const ca = new X509Certificate(caCert);
    if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
    if (!cert.subject.split('\n').includes(`CN=${commonName}`)) return false;
    if (Date.parse(cert.validFrom) > now.getTime() || Date.parse(cert.validTo) - now.getTime() < RENEW_BEFORE_MS) return false;
    const fromKey = createPublicKey(createPrivateKey(pair.key)).export({ type: 'spki', format: 'der' });
    return fromKey.equals(cert.publicKey.export({ type: 'spki', format: 'der' }));
  } catch {
    return false;
  }
}

/**
 * The client certificate `<name>.crt`/`<name>.key` of `pkiDir` for `commonName`, issued by the CA
 * (`caCert`, `caKey`) and written (key 0600) when missing or not reusable.
 */
export async function cachedClientCertificate(
  pkiDir: string,
  name: string,
  commonName: string,
  caCert: string,
  caKey: string,
  now: Date = new Date(),
): Promise<CertificateAndKey> {
  const certPath = join(pkiDir, `${name}.crt`);
  const keyPath = join(pkiDir, `${name}.key`);
  try {
    const pair = { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8') };
    if (reusableClientCertificate(pair, caCert, commonName, now)) return pair;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  // Imported here: a start that reuses its certificates never loads the X.509 library.
  const { issueClientCertificate, loadSigningCa } = await import('@kplane/controllers');
  const pair = await issueClientCertificate(await loadSigningCa(caCert, caKey), { commonName, organizations: [], durationMs: VALIDITY_MS, now });
  // Written beside, then renamed: a reader never sees half a key.
  await writeFile(`${keyPath}.tmp`, pair.key, { mode: 0o600 });
  await chmod(`${keyPath}.tmp`, 0o600);
  await rename(`${keyPath}.tmp`, keyPath);
  await writeFile(certPath, pair.cert, { mode: 0o644 });
  return pair;
}
