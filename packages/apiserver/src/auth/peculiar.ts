/**
 * The @peculiar ASN.1 and X.509 libraries, loaded on first use: an in-process control plane
 * that never reads a client certificate, makes a PKI or checks a certificate request, or a
 * controller manager that signs nothing, does not pay their import (reflect-metadata, tsyringe, asn1js and the schemas; their CommonJS builds,
 * which are also what an ES import of them resolves to). Exported as `@kplane/apiserver/peculiar`
 * for the certificates controllers.
 */
import { webcrypto } from 'node:crypto';
import { createRequire } from 'node:module';

type X509 = typeof import('@peculiar/x509');
type AsnSchema = typeof import('@peculiar/asn1-schema');
type AsnCsr = typeof import('@peculiar/asn1-csr');
type AsnX509 = typeof import('@peculiar/asn1-x509');

const load = createRequire(import.meta.url);
let x509Lib: X509 | undefined;

/** A module object whose properties are read from `get()` (the module, loaded once) on first access. */
function lazy<T extends object>(get: () => T): T {
  return new Proxy({} as T, { get: (_, name) => Reflect.get(get(), name) });
}

/** @peculiar/x509, with node's WebCrypto as its provider. */
export const x509: X509 = lazy(() => {
  if (!x509Lib) {
    load('reflect-metadata'); // tsyringe, under @peculiar/x509, needs it first
    x509Lib = load('@peculiar/x509') as X509;
    x509Lib.cryptoProvider.set(webcrypto as never);
  }
  return x509Lib;
});

/** @peculiar/asn1-schema. */
export const asnSchema: AsnSchema = lazy(() => load('@peculiar/asn1-schema') as AsnSchema);
/** @peculiar/asn1-csr. */
export const asnCsr: AsnCsr = lazy(() => load('@peculiar/asn1-csr') as AsnCsr);
/** @peculiar/asn1-x509. */
export const asnX509: AsnX509 = lazy(() => load('@peculiar/asn1-x509') as AsnX509);
