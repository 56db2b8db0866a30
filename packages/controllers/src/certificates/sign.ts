/**
 * Signing a certificate request with a CA, as kube-controller-manager's csrsigning does:
 * the subject and public key from the request, key usages from spec.usages, a validity that
 * starts 5 minutes in the past (clock skew) and never outlives the CA.
 */
import { createPrivateKey, randomBytes, webcrypto, X509Certificate as NodeX509 } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import { asnSchema, asnX509, x509 } from '@kplane/apiserver/peculiar';

type CryptoKey = webcrypto.CryptoKey;
type Algorithm = { name: string; hash?: string; namedCurve?: string };

/** A CA able to sign: its certificate and its private key. */
export interface SigningCa {
  cert: X509.X509Certificate;
  /** The CA certificate as PEM. */
  certPem: string;
  key: CryptoKey;
  signingAlgorithm: Algorithm;
  notAfter: Date;
}

/** How far back a certificate's notBefore is set (kube's backdate). */
export const BACKDATE_MS = 5 * 60 * 1000;

/** Loads a CA from PEM: the certificate and a PKCS#8, PKCS#1 or SEC1 private key (EC P-256/P-384/P-521 or RSA). */
export async function loadSigningCa(certPem: string, keyPem: string): Promise<SigningCa> {
  const cert = new x509.X509Certificate(certPem);
  const key = createPrivateKey(keyPem);
  const der = key.export({ type: 'pkcs8', format: 'der' });
  let alg: Algorithm;
  let signingAlgorithm: Algorithm;
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    const namedCurve = curve === 'secp384r1' ? 'P-384' : curve === 'secp521r1' ? 'P-521' : 'P-256';
    const hash = namedCurve === 'P-384' ? 'SHA-384' : namedCurve === 'P-521' ? 'SHA-512' : 'SHA-256';
    alg = { name: 'ECDSA', namedCurve };
    signingAlgorithm = { name: 'ECDSA', hash };
  } else if (key.asymmetricKeyType === 'rsa') {
    alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    signingAlgorithm = alg;
  } else {
    throw new Error(`unsupported signing key type ${key.asymmetricKeyType ?? 'unknown'}`);
  }
  const cryptoKey = await webcrypto.subtle.importKey('pkcs8', der, alg, false, ['sign']);
  return { cert, certPem: cert.toString('pem'), key: cryptoKey, signingAlgorithm, notAfter: cert.notAfter };
}

/** Key usage bits by usage name (built on first use, from the X.509 library's flags). */
const keyUsageBits = (): Record<string, number> => ({
  signing: x509.KeyUsageFlags.digitalSignature,
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
});

/** Extended key usage OIDs by usage name (built on first use). */
const extKeyUsages = (): Record<string, string> => ({
  any: '2.5.29.37.0',
  'server auth': x509.ExtendedKeyUsage.serverAuth,
  'client auth': x509.ExtendedKeyUsage.clientAuth,
  'code signing': x509.ExtendedKeyUsage.codeSigning,
  'email protection': x509.ExtendedKeyUsage.emailProtection,
  's/mime': x509.ExtendedKeyUsage.emailProtection,
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  'ocsp signing': x509.ExtendedKeyUsage.ocspSigning,
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
});

/**
 * The usages the kube-apiserver-client signer accepts: "client auth" required, "digital
 * signature" and "key encipherment" allowed. Returns kube's message for anything else.
 */
export function kubeApiServerClientUsagesError(usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') clientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment') return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

/** Options of signRequest. */
export interface SignOptions {
  /** The PEM certificate request. */
  request: string;
  usages: readonly string[];
  /** Validity from now, in milliseconds. */
  durationMs: number;
  now: Date;
}

/**
 * Signs a PEM certificate request: subject and public key from the request, the usages as
 * key usage and extended key usage extensions, notBefore 5 minutes before `now`, notAfter
 * `now + durationMs` but never after the CA's own notAfter. Returns the certificate as PEM.
 */
export async function signRequest(ca: SigningCa, options: SignOptions): Promise<string> {
  const req = new x509.Pkcs10CertificateRequest(options.request);
  let bits = 0;
  const ext: string[] = [];
  const usageBits = keyUsageBits();
  const extUsages = extKeyUsages();
  for (const u of options.usages) {
    if (usageBits[u] !== undefined) bits |= usageBits[u]!;
    const oid = extUsages[u];
    if (oid && !ext.includes(oid)) ext.push(oid);
  }
  const extensions: X509.Extension[] = [new x509.BasicConstraintsExtension(false, undefined, true)];
  if (bits) extensions.push(new x509.KeyUsagesExtension(bits, true));
  if (ext.length) extensions.push(new x509.ExtendedKeyUsageExtension(ext));
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(ca.cert));
  const notBefore = new Date(options.now.getTime() - BACKDATE_MS);
  let notAfter = new Date(options.now.getTime() + options.durationMs);
  if (notAfter > ca.notAfter) notAfter = ca.notAfter;
  const serial = randomBytes(16);
  serial[0] = serial[0]! & 0x7f;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject: req.subjectName,
    issuer: ca.cert.subjectName,
    notBefore,
    notAfter,
    publicKey: req.publicKey,
    signingKey: ca.key,
    signingAlgorithm: ca.signingAlgorithm,
    extensions,
  });
  return cert.toString('pem');
}

/** notAfter of a PEM certificate (the first block), or undefined when it cannot be read. */
export function certificateNotAfter(pem: string): Date | undefined {
  try {
    return new Date(new NodeX509(pem).validTo);
  } catch {
    return undefined;
  }
}

/** Options of issueClientCertificate. */
export interface ClientCertificateOptions {
  /** The user name (subject CN). */
  commonName: string;
  /** The groups (one subject O each). */
  organizations: readonly string[];
  durationMs: number;
  now: Date;
}

/**
 * Makes a new EC P-256 key and a client certificate for it signed by the CA (subject CN and O
 * as given, usages digital signature, key encipherment and client auth), as the
 * kube-apiserver-client signer would issue it. Returns both as PEM (the key PKCS#8).
 */
export async function issueClientCertificate(ca: SigningCa, options: ClientCertificateOptions): Promise<{ cert: string; key: string }> {
  const { request, key } = await createClientCertificateRequest(options.commonName, options.organizations);
  const cert = await signRequest(ca, {
    request,
    usages: ['digital signature', 'key encipherment', 'client auth'],
    durationMs: options.durationMs,
    now: options.now,
  });
  return { cert, key };
}

/**
 * Makes a new EC P-256 key and a PKCS#10 certificate request for it (subject CN and one O per
 * group), as a kubelet makes for its client certificate. Returns both as PEM (the key PKCS#8).
 */
export async function createClientCertificateRequest(commonName: string, organizations: readonly string[]): Promise<{ request: string; key: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  // Built as ASN.1, each value a UTF8String taken as is (no string form to parse and escape).
  const { AttributeTypeAndValue, AttributeValue, Name: AsnName, RelativeDistinguishedName } = asnX509;
  const rdn = (type: string, value: string) => new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: value }) })]);
  const name = new x509.Name(asnSchema.AsnConvert.serialize(new AsnName([rdn('2.5.4.3', commonName), ...organizations.map((o) => rdn('2.5.4.10', o))])));
  const request = await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: alg });
  const key = x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  return { request: request.toString('pem'), key };
}
