/**
 * Test support (not exported from the package): a small custom kind, Book in
 * library.example.com/v1, declared with TypeBox for the SDK's own tests. The full-size example
 * of a kind (CEL rules, scale subresource, the chapter's CRD) is the Greeting of
 * examples/greeting-operator, tested there against the chapter's hand-written CRD.
 */
import { Type } from '@sinclair/typebox';
import { defineKind } from './custom.js';
import type { ObjectOf } from './descriptors.js';
import { KubeType } from './schema.js';

/** The Book kind: a title, a defaulted number of copies, and a status with list-map conditions. */
export const BookKind = defineKind({
  group: 'library.example.com',
  version: 'v1',
  kind: 'Book',
  plural: 'books',
  scope: 'Namespaced',
  spec: Type.Object({
    title: Type.String({ minLength: 1 }),
    copies: Type.Optional(Type.Integer({ minimum: 0, default: 2 })),
  }),
  status: Type.Object({
    available: Type.Optional(Type.Integer()),
    conditions: Type.Optional(
      KubeType.ListMap(Type.Object({ type: Type.String(), status: Type.Union([Type.Literal('True'), Type.Literal('False')]), reason: Type.Optional(Type.String()) }), ['type']),
    ),
  }),
  subresources: { status: true },
  printerColumns: [{ name: 'Title', type: 'string', jsonPath: '.spec.title' }],
});

/** A Book object: `apiVersion?: 'library.example.com/v1'`, `kind?: 'Book'`, spec and status. */
export type Book = ObjectOf<typeof BookKind>;
