/**
 * PKCS#10 certificate requests and PEM certificates as kube-apiserver checks them: a
 * CertificateSigningRequest's spec.request must be a PEM `CERTIFICATE REQUEST` whose signature
 * verifies with its own public key; status.certificate must hold only `CERTIFICATE` blocks.
 * node:crypto reads certificates but not PKCS#10, so the request is decoded with
 * @peculiar/asn1-csr (the ASN.1 schemas under @peculiar/x509, which pki.ts uses) and its
 * signature checked with node:crypto, synchronously, as validation runs.
 */
import { X509Certificate, createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { CertificationRequest } from '@peculiar/asn1-csr';
import { asnCsr, asnSchema } from '../auth/peculiar.js';

/** One PEM block: its type, whether it had headers, and its DER bytes. */
export interface PemBlock {
  type: string;
  hasHeaders: boolean;
  der: Buffer;
}

const PEM_BLOCK = /-----BEGIN ([^-\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** The PEM blocks of a text, in order (text between blocks is ignored, as Go's pem.Decode skips it). */
export function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(PEM_BLOCK)) {
    const body = m[2]!;
    // Base64 has no ':'; a PEM header line ("Proc-Type: 4,ENCRYPTED") does, and ends at a blank line.
    const hasHeaders = body.includes(':');
    const b64 = hasHeaders ? body.slice(Math.max(0, body.search(/\r?\n\r?\n/))).replace(/^[^\n]*:[^\n]*$/gm, '') : body;
    out.push({ type: m[1]!, hasHeaders, der: Buffer.from(b64.replace(/\s+/g, ''), 'base64') });
  }
  return out;
}

/** A parsed certificate request: the public key, the subject's CN and O values, and how it is signed. */
export interface ParsedCsr {
  publicKey: KeyObject;
  commonName: string;
  organizations: string[];
  /** The signature algorithm's OID. */
  signatureAlgorithm: string;
  /** The DER bytes of certificationRequestInfo (what is signed) and the signature. */
  tbs: Buffer;
  signature: Buffer;
  /** The SubjectPublicKeyInfo, DER. */
  spki: Buffer;
}

const OID_CN = '2.5.4.3';
const OID_O = '2.5.4.10';

/** The hash of each signature algorithm node:crypto can verify (null: the algorithm has none, Ed25519). */
const SIGNATURE_HASHES: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

function attributeText(value: { toString(): string }): string {
  return value.toString();
}

/**
 * Parses a PEM certificate request as Kubernetes' ParseCSR does: the first PEM block must be a
 * `CERTIFICATE REQUEST`. Throws an Error with Go's wording otherwise.
 */
export function parseCsrPem(pem: string): ParsedCsr {
  const block = pemBlocks(pem)[0];
  if (!block || block.type !== 'CERTIFICATE REQUEST') throw new Error('PEM block type must be CERTIFICATE REQUEST');
  let req: CertificationRequest;
  try {
    req = asnSchema.AsnConvert.parse(block.der, asnCsr.CertificationRequest);
  } catch {
    throw new Error('x509: malformed certificate request');
  }
  const info = req.certificationRequestInfo;
  const spki = Buffer.from(asnSchema.AsnConvert.serialize(info.subjectPKInfo));
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  } catch {
    throw new Error('x509: unsupported public key algorithm');
  }
  let commonName = '';
  const organizations: string[] = [];
  for (const rdn of info.subject) {
    for (const atv of rdn) {
      const text = attributeText(atv.value);
      if (atv.type === OID_CN && !commonName) commonName = text;
      else if (atv.type === OID_O) organizations.push(text);
    }
  }
  return {
    publicKey,
    commonName,
    organizations,
    signatureAlgorithm: req.signatureAlgorithm.algorithm,
    tbs: Buffer.from(req.certificationRequestInfoRaw ?? asnSchema.AsnConvert.serialize(info)),
    signature: Buffer.from(req.signature),
    spki,
  };
}

/** Checks a request's signature with its own public key (x509.CertificateRequest.CheckSignature); throws Go's message. */
export function checkCsrSignature(csr: ParsedCsr): void {
  const hash = SIGNATURE_HASHES[csr.signatureAlgorithm];
  if (hash === undefined) throw new Error('x509: cannot verify signature: algorithm unimplemented');
  const type = csr.publicKey.asymmetricKeyType;
  let ok = false;
  try {
    ok = verify(hash, csr.tbs, csr.publicKey, csr.signature);
  } catch {
    ok = false;
  }
  if (ok) return;
  if (type === 'ec') throw new Error('x509: ECDSA verification failure');
  if (type === 'ed25519') throw new Error('x509: Ed25519 verification failure');
  throw new Error('crypto/rsa: verification error');
}

/**
 * Checks status.certificate as kube-apiserver does (empty is fine): one or more `CERTIFICATE`
 * PEM blocks without headers, each a certificate. Returns Go's message, or undefined.
 */
export function certificateError(pem: string): string | undefined {
  if (pem.length === 0) return undefined;
  const blocks = pemBlocks(pem);
  if (blocks.length === 0) return 'must contain at least one CERTIFICATE PEM block';
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(b.type)}`;
    if (b.hasHeaders) return 'no PEM block headers are permitted';
    try {
      new X509Certificate(b.der);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return undefined;
}
