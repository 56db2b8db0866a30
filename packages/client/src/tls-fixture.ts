/**
 * Test-only helper: a throwaway CA with a server certificate (localhost, 127.0.0.1) and a
 * client certificate, generated in memory with @peculiar/x509. Not exported from the package.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';


/** PEM material for a test PKI. */
export interface TestPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
}

/** Generates a CA, a server certificate for localhost/127.0.0.1 and a client certificate (CN=admin). */
export async function createTestPki(): Promise<TestPki> {
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as never);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const subtle = webcrypto.subtle;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + 24 * 3600_000);
  const keyPem = async (k: webcrypto.CryptoKey) => x509.PemConverter.encode(await subtle.exportKey('pkcs8', k), 'PRIVATE KEY');

  const caKeys = await subtle.generateKey(alg, true, ['sign', 'verify']);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=kplane-test-ca',
    notBefore,
    notAfter,
    signingAlgorithm: alg,
    keys: caKeys as never,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.digitalSignature, true),
    ],
  });
  const issue = async (serial: string, subject: string, extensions: InstanceType<typeof x509.Extension>[]) => {
    const keys = await subtle.generateKey(alg, true, ['sign', 'verify']);
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial,
      subject,
      issuer: ca.subject,
      notBefore,
      notAfter,
      signingAlgorithm: alg,
      publicKey: keys.publicKey as never,
      signingKey: caKeys.privateKey as never,
      extensions,
    });
    return { cert: cert.toString('pem'), key: await keyPem(keys.privateKey) };
  };
  const server = await issue('02', 'CN=localhost', [
    new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }, { type: 'ip', value: '127.0.0.1' }]),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
  ]);
  const client = await issue('03', 'CN=admin, O=system:masters', [
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
  ]);
  return { caCert: ca.toString('pem'), serverCert: server.cert, serverKey: server.key, clientCert: client.cert, clientKey: client.key };
}
