/**
 * TLS for local webhook servers: a self-signed CA and a serving certificate signed by it, made
 * with node:crypto alone (ECDSA P-256 keys and signatures) and a small DER encoder for the
 * X.509 structures (RFC 5280), so the runtime needs no certificate library.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

/** PEM material of a webhook server: its CA (the caBundle's source), its certificate and key. */
export interface WebhookCertificates {
  /** The CA certificate, PEM. */
  caCert: string;
  /** The CA certificate as a webhook configuration's `clientConfig.caBundle` wants it: base64 of the PEM. */
  caBundle: string;
  /** The serving certificate, PEM, signed by the CA. */
  cert: string;
  /** The serving certificate's private key, PKCS#8 PEM. */
  key: string;
}

/** Options of generateWebhookCertificates. */
export interface WebhookCertificateOptions {
  /** Host names and IP addresses the certificate is valid for (default localhost and 127.0.0.1, ::1). */
  hosts?: string[];
  /** Validity in days (default 365). */
  days?: number;
  /** Start of validity (default now minus one minute). */
  notBefore?: Date;
}

// --- DER -------------------------------------------------------------------------------------

function len(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}
const tlv = (tag: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([tag]), len(body.length), body]);
const seq = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const explicit = (n: number, body: Buffer): Buffer => tlv(0xa0 + n, body);
const octets = (body: Buffer): Buffer => tlv(0x04, body);
const bits = (body: Buffer): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), body]));
const bool = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0]));
const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));

function integer(bytes: Buffer): Buffer {
  let b = bytes;
  while (b.length > 1 && b[0] === 0 && (b[1]! & 0x80) === 0) b = b.subarray(1);
  if (b[0]! & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return tlv(0x02, b);
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const out = [parts[0]! * 40 + parts[1]!];
  for (const p of parts.slice(2)) {
    const chunk = [p & 0x7f];
    for (let v = Math.floor(p / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift(0x80 | (v & 0x7f));
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

/** UTCTime before 2050, GeneralizedTime from then on (RFC 5280 §4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2))) : tlv(0x18, Buffer.from(iso));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  const [head, tail] = ip.split('::') as [string, string | undefined];
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = groups(tail);
  const all = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.concat(all.map((g) => Buffer.from(g.padStart(4, '0'), 'hex')));
}

// --- X.509 -----------------------------------------------------------------------------------

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));
const name = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), utf8(cn))));
const extension = (id: string, critical: boolean, value: Buffer): Buffer =>
  seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));

interface CertSpec {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signingKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  extensions: Buffer[];
}

function certificate(spec: CertSpec): string {
  const spki = spec.publicKey.export({ type: 'spki', format: 'der' });
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))),
    integer(Buffer.concat([Buffer.from([0x01]), randomBytes(15)])),
    ECDSA_SHA256,
    name(spec.issuer),
    seq(time(spec.notBefore), time(spec.notAfter)),
    name(spec.subject),
    spki,
    explicit(3, seq(...spec.extensions)),
  );
  const signature = sign('sha256', tbs, spec.signingKey);
  const der = seq(tbs, ECDSA_SHA256, bits(signature));
  const b64 = der.toString('base64').replace(/.{1,64}/g, '$&\n');
  return `-----BEGIN CERTIFICATE-----\n${b64}-----END CERTIFICATE-----\n`;
}

/** KeyUsage bits as a DER BIT STRING: digitalSignature (0), keyEncipherment (2), keyCertSign (5). */
function keyUsage(...bitsSet: number[]): Buffer {
  let byte = 0;
  for (const b of bitsSet) byte |= 0x80 >> b;
  return tlv(0x03, Buffer.from([0, byte]));
}

/** The subject key identifier: SHA-1 of the SubjectPublicKeyInfo (RFC 5280 §4.2.1.2 allows any unique digest). */
const keyId = (key: KeyObject): Buffer => createHash('sha1').update(key.export({ type: 'spki', format: 'der' })).digest();

/**
 * Generates a self-signed CA and a serving certificate signed by it for `hosts` (default
 * localhost, 127.0.0.1 and ::1), with node:crypto: what a webhook server needs to run locally
 * and what its configurations' `caBundle` must hold.
 */
export function generateWebhookCertificates(options: WebhookCertificateOptions = {}): WebhookCertificates {
  const hosts = options.hosts ?? ['localhost', '127.0.0.1', '::1'];
  const notBefore = options.notBefore ?? new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + (options.days ?? 365) * 86_400_000);
  const ca = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const leaf = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const caId = keyId(ca.publicKey);
  const caCert = certificate({
    subject: 'kplane-webhook-ca',
    issuer: 'kplane-webhook-ca',
    publicKey: ca.publicKey,
    signingKey: ca.privateKey,
    notBefore,
    notAfter,
    extensions: [
      extension('2.5.29.19', true, seq(bool(true))),
      extension('2.5.29.15', true, keyUsage(0, 5)),
      extension('2.5.29.14', false, octets(caId)),
    ],
  });
  const san = hosts.map((h) => (isIP(h) ? tlv(0x87, ipBytes(h)) : tlv(0x82, Buffer.from(h, 'ascii'))));
  const cert = certificate({
    subject: hosts[0] ?? 'localhost',
    issuer: 'kplane-webhook-ca',
    publicKey: leaf.publicKey,
    signingKey: ca.privateKey,
    notBefore,
    notAfter,
    extensions: [
      extension('2.5.29.19', true, seq()),
      extension('2.5.29.15', true, keyUsage(0, 2)),
      extension('2.5.29.37', false, seq(oid('1.3.6.1.5.5.7.3.1'))),
      extension('2.5.29.35', false, seq(tlv(0x80, caId))),
      extension('2.5.29.17', false, seq(...san)),
    ],
  });
  const key = leaf.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  return { caCert, caBundle: Buffer.from(caCert).toString('base64'), cert, key };
}

