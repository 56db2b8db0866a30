import { webcrypto, randomBytes, X509Certificate as NodeX509 } from 'node:crypto';
import { mkdir, readFile, writeFile, access } from 'node:fs/promises';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';
import { x509 } from './peculiar.js';

type CryptoKeyPair = webcrypto.CryptoKeyPair;
type CryptoKey = webcrypto.CryptoKey;

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** PEM-encoded certificate and PKCS#8 private key. */
export interface KeyPairPem {
  cert: string;
  key: string;
}

/** The credentials kplane keeps in its data dir. */
export interface Pki {
  ca: KeyPairPem;
  serving: KeyPairPem;
  /** Client certificate of the admin user (CN kplane-admin, O system:masters). */
  admin: KeyPairPem;
  /** Bearer token of the admin user. */
  adminToken: string;
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

function serial(): string {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
}

const YEARS = (n: number): Date => new Date(Date.now() + n * 365 * 24 * 3600 * 1000);

/** Creates a self-signed CA valid for 10 years. */
export async function createCa(commonName = 'kplane-ca'): Promise<{ pem: KeyPairPem; keys: CryptoKeyPair; cert: X509.X509Certificate }> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: YEARS(10),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { pem: { cert: cert.toString('pem'), key: await keyPem(keys.privateKey) }, keys, cert };
}

/** Options of issueCertificate. */
export interface IssueOptions {
  /** Subject, e.g. "CN=kplane-admin, O=system:masters". */
  subject: string;
  usage: 'server' | 'client';
  dnsNames?: string[];
  ipAddresses?: string[];
  years?: number;
}

/** Issues a leaf certificate signed by the CA. */
export async function issueCertificate(ca: { keys: CryptoKeyPair; cert: X509.X509Certificate }, options: IssueOptions): Promise<KeyPairPem> {
  const keys = await newKeys();
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([options.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
    await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
  ];
  const names = [
    ...(options.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(options.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  if (names.length) extensions.push(new x509.SubjectAlternativeNameExtension(names));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: options.subject,
    issuer: ca.cert.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: YEARS(options.years ?? 1),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: ALG,
    extensions,
  });
  return { cert: cert.toString('pem'), key: await keyPem(keys.privateKey) };
}

async function exists(p: string): Promise<boolean> {
  try {
    await access(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Loads the PKI from `dir`, creating what is missing: a CA, a serving certificate for
 * localhost/127.0.0.1 (and extra SANs), an admin client certificate and an admin token.
 * Files: ca.crt ca.key serving.crt serving.key admin.crt admin.key admin.token (keys mode 0600).
 */
export async function ensurePki(dir: string, extraSans: string[] = []): Promise<Pki> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const f = (n: string) => join(dir, n);
  const files = ['ca.crt', 'ca.key', 'serving.crt', 'serving.key', 'admin.crt', 'admin.key', 'admin.token'];
  const present = await Promise.all(files.map((n) => exists(f(n))));
  if (present.every(Boolean)) {
    const [caCert, caKey, sCert, sKey, aCert, aKey, token] = await Promise.all(files.map((n) => readFile(f(n), 'utf8')));
    const serving = new NodeX509(sCert!);
    if (serving.validTo && new Date(serving.validTo).getTime() > Date.now() + 24 * 3600 * 1000) {
      return { ca: { cert: caCert!, key: caKey! }, serving: { cert: sCert!, key: sKey! }, admin: { cert: aCert!, key: aKey! }, adminToken: token!.trim() };
    }
  }
  const ca = await createCa();
  const serving = await issueCertificate(ca, {
    subject: 'CN=kplane-apiserver',
    usage: 'server',
    dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', ...extraSans.filter((s) => !/^[\d.:]+$/.test(s))],
    ipAddresses: ['127.0.0.1', '::1', ...extraSans.filter((s) => /^[\d.:]+$/.test(s))],
  });
  const admin = await issueCertificate(ca, { subject: 'CN=kplane-admin, O=system:masters', usage: 'client' });
  const adminToken = randomBytes(24).toString('base64url');
  const write = (n: string, v: string, mode: number) => writeFile(f(n), v, { mode });
  await Promise.all([
    write('ca.crt', ca.pem.cert, 0o644),
    write('ca.key', ca.pem.key, 0o600),
    write('serving.crt', serving.cert, 0o644),
    write('serving.key', serving.key, 0o600),
    write('admin.crt', admin.cert, 0o644),
    write('admin.key', admin.key, 0o600),
    write('admin.token', adminToken + '\n', 0o600),
  ]);
  return { ca: ca.pem, serving, admin, adminToken };
}
