/**
 * The ServiceAccount token keys: the private key that signs tokens
 * (`--service-account-signing-key-file`) and the public keys that verify them
 * (`--service-account-key-file`), as kube-apiserver reads them, and the JWKS that
 * /openid/v1/jwks serves.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPair, generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { access, mkdir, readFile, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';

/** A public key that verifies tokens. */
export interface VerifyingKey {
  readonly key: KeyObject;
  /** Key id: the unpadded base64url SHA-256 of its DER (PKIX) encoding, as kube-apiserver. */
  readonly kid: string;
  readonly alg: string;
}

/** The keys of ServiceAccount tokens. */
export interface ServiceAccountKeys {
  readonly signingKey: KeyObject;
  readonly signingKid: string;
  readonly signingAlg: string;
  /** Every key tokens are verified with (the signing key's public half first). */
  readonly publicKeys: readonly VerifyingKey[];
}

/** The JWS algorithm kube-apiserver signs with for a key: RS256 for RSA, ES256/384/512 by curve. */
export function algorithmOf(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
  }
  throw new Error(`unsupported ServiceAccount key type ${key.asymmetricKeyType ?? 'unknown'} (RSA or ECDSA P-256/384/521 only)`);
}

/** The key id of a public key (unpadded base64url SHA-256 of its PKIX DER). */
export function keyId(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

function verifying(key: KeyObject): VerifyingKey {
  return { key, kid: keyId(key), alg: algorithmOf(key) };
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/**
 * The public keys in PEM text, as `--service-account-key-file` reads it: public keys, private
 * keys (their public half) and certificates (their key), any number of blocks.
 */
export function publicKeysFromPem(pem: string, path = 'key file'): KeyObject[] {
  const out: KeyObject[] = [];
  for (const m of pem.matchAll(PEM_BLOCK)) {
    const type = m[1]!;
    if (type === 'CERTIFICATE') out.push(new X509Certificate(m[0]).publicKey);
    else if (type.includes('PRIVATE KEY')) out.push(createPublicKey(createPrivateKey(m[0])));
    else if (type.includes('PUBLIC KEY')) out.push(createPublicKey(m[0]));
  }
  if (out.length === 0) throw new Error(`${path}: no public key, private key or certificate found`);
  for (const k of out) algorithmOf(k);
  return out;
}

/** The private key in PEM text (`--service-account-signing-key-file`). */
export function signingKeyFromPem(pem: string, path = 'signing key file'): KeyObject {
  const block = [...pem.matchAll(PEM_BLOCK)].find((m) => m[1]!.includes('PRIVATE KEY'));
  if (!block) throw new Error(`${path}: no private key found`);
  const key = createPrivateKey(block[0]);
  algorithmOf(key);
  return key;
}

/**
 * Puts the keys together: the signing key and the extra verifying keys (duplicates of the
 * signing key's public half dropped).
 */
export function serviceAccountKeys(signingKey: KeyObject, verifyKeys: readonly KeyObject[] = []): ServiceAccountKeys {
  const own = verifying(createPublicKey(signingKey));
  const others = verifyKeys.map(verifying).filter((k, i, all) => k.kid !== own.kid && all.findIndex((o) => o.kid === k.kid) === i);
  return { signingKey, signingKid: own.kid, signingAlg: own.alg, publicKeys: [own, ...others] };
}

/** A fresh in-memory key (ECDSA P-256), for an API server given no key files (tests, memory). */
export function generateServiceAccountKeys(): ServiceAccountKeys {
  return serviceAccountKeys(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey);
}

/**
 * The key pair kplane keeps in its PKI folder, made at first start (RSA 2048, as kubeadm's
 * sa.key/sa.pub): `sa.key` (PKCS#8, 0600) and `sa.pub` (PKIX). Returns the two paths.
 */
export async function ensureServiceAccountKeyFiles(dir: string): Promise<{ keyFile: string; publicKeyFile: string }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const keyFile = join(dir, 'sa.key');
  const publicKeyFile = join(dir, 'sa.pub');
  const exists = async (p: string) => access(p).then(() => true, () => false);
  if (!(await exists(keyFile)) || !(await exists(publicKeyFile))) {
    // On libuv's thread pool: a first start does its other work meanwhile (an RSA key takes long).
    const { privateKey, publicKey } = await new Promise<{ privateKey: KeyObject; publicKey: KeyObject }>((resolve, reject) =>
      generateKeyPair('rsa', { modulusLength: 2048 }, (err, publicKey, privateKey) => (err ? reject(err) : resolve({ privateKey, publicKey }))),
    );
    await writeFile(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    await writeFile(publicKeyFile, publicKey.export({ type: 'spki', format: 'pem' }), { mode: 0o644 });
  }
  await chmod(keyFile, 0o600);
  return { keyFile, publicKeyFile };
}

/**
 * Loads the keys from files: the signing key file and the verifying key files (none: the
 * signing key's own public half verifies).
 */
export async function loadServiceAccountKeys(signingKeyFile: string, keyFiles: readonly string[] = []): Promise<ServiceAccountKeys> {
  const signing = signingKeyFromPem(await readFile(signingKeyFile, 'utf8'), signingKeyFile);
  const verify: KeyObject[] = [];
  for (const f of keyFiles) verify.push(...publicKeysFromPem(await readFile(f, 'utf8'), f));
  return serviceAccountKeys(signing, verify);
}

/** The JSON Web Key Set of the verifying keys (/openid/v1/jwks). */
export function jwks(keys: ServiceAccountKeys): { keys: object[] } {
  return { keys: keys.publicKeys.map((k) => ({ use: 'sig', ...k.key.export({ format: 'jwk' }), kid: k.kid, alg: k.alg })) };
}
